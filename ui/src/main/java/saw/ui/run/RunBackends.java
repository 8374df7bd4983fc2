package saw.ui.run;

import java.util.ArrayList;
import java.util.List;
import saw.engine.cpu.CpuBackend;
import saw.engine.gpu.GpuBackend;
import saw.engine.gpu.GpuStatus;
import saw.ui.remote.RemoteTargets;

/**
 * The backends the run panel offers: the GPU when one is found (else why not), the CPU everywhere, and the remote
 * targets saved in the target dialog.
 */
public final class RunBackends {
    private RunBackends() {}

    /** Probes the GPU (loads the CUDA driver if there is one): call it on a worker thread. */
    public static List<BackendChoice> detect() {
        GpuStatus gpu = GpuBackend.detect();
        BackendChoice g = new BackendChoice("gpu", gpu.message(), gpu.usable(), GpuBackend::open, gpu.memoryBytes());
        String cpuNote = "Multithreaded fp32 block-sparse attention on " + Runtime.getRuntime().availableProcessors()
                + " CPU threads" + (gpu.usable() ? "." : "; no GPU backend here: " + gpu.message());
        BackendChoice c = new BackendChoice("cpu", cpuNote, true, CpuBackend::new, 0);
        List<BackendChoice> out = new ArrayList<>(gpu.usable() ? List.of(g, c) : List.of(c, g));
        out.addAll(RemoteTargets.choices());
        return out;
    }
}
