package saw.ui.remote;

import javafx.beans.binding.Bindings;
import javafx.geometry.Insets;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.scene.control.TextArea;
import javafx.scene.control.TextField;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import javafx.stage.Modality;
import javafx.stage.Stage;
import javafx.stage.Window;

/**
 * The remote targets dialog: the saved targets on the left; on the right the fields of a new one (name, address,
 * command prefix), Connect (which shows the GPU there), and, when a host key is new, its fingerprint with a
 * "Trust and connect" button.
 */
public final class TargetDialog extends BorderPane {
    public TargetDialog(TargetsModel model) {
        setId("target-dialog");
        getStyleClass().add("target-dialog");
        setPadding(new Insets(10));

        ListView<saw.remote.TargetStore.Saved> list = new ListView<>(model.targets());
        list.setId("target-list");
        list.setPrefWidth(180);
        list.getSelectionModel().selectedItemProperty().addListener((o, a, s) -> model.selectedProperty().set(s));
        model.selectedProperty().addListener((o, a, s) -> list.getSelectionModel().select(s));

        TextField name = field("target-name", "gpu-box");
        name.textProperty().bindBidirectional(model.nameProperty());
        TextField address = field("target-address", "user@host[:port] or a Host alias of ~/.ssh/config");
        address.textProperty().bindBidirectional(model.addressProperty());
        TextField prefix = field("target-prefix", "optional, e.g. srun -p gpu --gres=gpu:1");
        prefix.textProperty().bindBidirectional(model.prefixProperty());
        GridPane form = new GridPane();
        form.setHgap(8);
        form.setVgap(6);
        form.addRow(0, new Label("Name"), name);
        form.addRow(1, new Label("Address"), address);
        form.addRow(2, new Label("Command prefix"), prefix);
        GridPane.setHgrow(address, Priority.ALWAYS);

        Button add = new Button("Add");
        add.setId("target-add");
        add.setOnAction(e -> model.add());
        Button remove = new Button("Remove");
        remove.setId("target-remove");
        remove.disableProperty().bind(model.selectedProperty().isNull());
        remove.setOnAction(e -> model.remove());
        Button connect = new Button("Connect");
        connect.setId("target-connect");
        connect.setDefaultButton(true);
        connect.disableProperty().bind(model.selectedProperty().isNull().or(model.busyProperty()));
        connect.setOnAction(e -> model.connect());
        HBox buttons = new HBox(8, add, remove, connect);

        Label status = new Label();
        status.setId("target-status");
        status.setWrapText(true);
        status.textProperty().bind(model.statusProperty());
        model.failedProperty().addListener((o, a, f) -> status.getStyleClass().setAll(f ? "error" : "muted"));

        Label keyLine = new Label();
        keyLine.setId("target-host-key");
        keyLine.setWrapText(true);
        keyLine.textProperty().bind(Bindings.createStringBinding(() -> model.unknownKeyProperty().get() == null ? ""
                : "New host key: " + model.unknownKeyProperty().get().describe(), model.unknownKeyProperty()));
        Button trust = new Button("Trust and connect");
        trust.setId("target-trust");
        trust.setOnAction(e -> model.trustAndConnect());
        trust.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE);
        HBox.setHgrow(keyLine, Priority.ALWAYS);
        HBox keyBox = new HBox(8, keyLine, trust);
        keyBox.visibleProperty().bind(model.unknownKeyProperty().isNotNull());
        keyBox.managedProperty().bind(keyBox.visibleProperty());

        Label gpu = new Label();
        gpu.setId("target-gpu");
        gpu.getStyleClass().add("target-gpu");
        gpu.textProperty().bind(Bindings.createStringBinding(() -> model.gpuProperty().get().isEmpty() ? "" : "GPU: " + model.gpuProperty().get(),
                model.gpuProperty()));
        TextArea env = new TextArea();
        env.setId("target-env");
        env.setEditable(false);
        env.setPrefRowCount(8);
        env.textProperty().bind(model.envProperty());
        env.getStyleClass().add("mono");

        VBox right = new VBox(8, form, buttons, keyBox, status, gpu, env);
        right.setPadding(new Insets(0, 0, 0, 10));
        VBox.setVgrow(env, Priority.ALWAYS);
        setLeft(list);
        setCenter(right);
    }

    private static TextField field(String id, String prompt) {
        TextField f = new TextField();
        f.setId(id);
        f.setPromptText(prompt);
        return f;
    }

    /** Opens the dialog over {@code owner}; {@code closed} runs when it closes (to refresh the run panel's list). */
    public static Stage show(Window owner, TargetsModel model, Runnable closed) {
        Stage stage = new Stage();
        stage.initOwner(owner);
        stage.initModality(Modality.WINDOW_MODAL);
        stage.setTitle("Remote targets");
        Scene scene = new Scene(new TargetDialog(model), 760, 440);
        if (owner != null && owner.getScene() != null) {
            scene.getStylesheets().setAll(owner.getScene().getStylesheets());
        }
        stage.setScene(scene);
        stage.setOnHidden(e -> closed.run());
        stage.show();
        return stage;
    }
}
