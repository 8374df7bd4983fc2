package saw.engine.reliability;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a compiled class refers to, read from its constant pool: the classes it names (also inside type
 * descriptors) and the methods (and fields) it uses, as "owner.name" and with descriptors as "owner.name(args)result".
 * Enough to check that code cannot reach an API at all.
 */
public final class ClassReferences {
    private static final Pattern DESCRIPTOR_CLASS = Pattern.compile("L([A-Za-z0-9_/$]+);");

    public final TreeSet<String> classes = new TreeSet<>();
    public final TreeSet<String> methods = new TreeSet<>();
    /** The methods with their descriptors: "owner.name(args)result". */
    public final TreeSet<String> calls = new TreeSet<>();

    private ClassReferences() {}

    public static ClassReferences of(InputStream classFile) throws IOException {
        DataInputStream in = new DataInputStream(classFile);
        if (in.readInt() != 0xCAFEBABE) {
            throw new IOException("not a class file");
        }
        in.readUnsignedShort();
        in.readUnsignedShort();
        int count = in.readUnsignedShort();
        String[] utf8 = new String[count];
        int[] classNameIndex = new int[count];
        List<int[]> memberRefs = new ArrayList<>(); // class index, name-and-type index
        int[] natName = new int[count];
        int[] natType = new int[count];
        for (int i = 1; i < count; i++) {
            int tag = in.readUnsignedByte();
            switch (tag) {
                case 1: utf8[i] = in.readUTF(); break;
                case 3: case 4: in.readInt(); break;
                case 5: case 6: in.readLong(); i++; break;
                case 7: classNameIndex[i] = in.readUnsignedShort(); break;
                case 8: case 16: case 19: case 20: in.readUnsignedShort(); break;
                case 9: case 10: case 11: memberRefs.add(new int[] {in.readUnsignedShort(), in.readUnsignedShort()}); break;
                case 12: natName[i] = in.readUnsignedShort(); natType[i] = in.readUnsignedShort(); break;
                case 15: in.readUnsignedByte(); in.readUnsignedShort(); break;
                case 17: case 18: in.readUnsignedShort(); in.readUnsignedShort(); break;
                default: throw new IOException("unknown constant pool tag " + tag);
            }
        }
        ClassReferences refs = new ClassReferences();
        for (int i = 1; i < count; i++) {
            if (classNameIndex[i] != 0) {
                refs.classes.add(utf8[classNameIndex[i]]);
            }
            if (utf8[i] != null && (utf8[i].startsWith("(") || utf8[i].startsWith("L"))) {
                Matcher m = DESCRIPTOR_CLASS.matcher(utf8[i]);
                while (m.find()) {
                    refs.classes.add(m.group(1));
                }
            }
        }
        for (int[] ref : memberRefs) {
            String method = utf8[classNameIndex[ref[0]]] + "." + utf8[natName[ref[1]]];
            refs.methods.add(method);
            refs.calls.add(method + utf8[natType[ref[1]]]);
        }
        return refs;
    }
}
