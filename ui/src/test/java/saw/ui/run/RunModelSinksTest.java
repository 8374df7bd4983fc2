package saw.ui.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import saw.engine.attention.AttentionBackend;
import saw.engine.bench.SweepRunner;

/** The run panel's learned sinks setting, without a window. */
class RunModelSinksTest {
    @Test
    void sinksAreOffByDefaultAndTheRunsSettingsCarryThem() {
        RunModel m = new RunModel(Runnable::run);
        assertFalse(m.sinksProperty().get());
        assertFalse(m.settings().sinks());
        m.sinksProperty().set(true);
        assertTrue(m.settings().sinks());
        assertEquals(new SweepRunner.Settings(2, 5, 1, true), m.settings());
    }

    @Test
    void progressAndSummaryLinesSayWhenARunTimesSinks() {
        assertEquals(" with learned sinks", RunModel.withSinks(new SweepRunner.Settings(0, 1, 1, true)));
        assertEquals("", RunModel.withSinks(new SweepRunner.Settings(0, 1, 1, false)));
    }

    @Test
    void aBackendsRefusalNamesTheFieldAsTheWindowCallsIt() {
        assertEquals("learned sinks: the cpu-reference backend does not time learned sink logits; run on the gpu or cpu"
                + " backend, or turn them off", RunModel.inWindowWords(AttentionBackend.sinksRefusal("cpu-reference")));
    }

    @Test
    void turningSinksOnOrOffClearsARefusalOfTheOldSettings() {
        RunModel m = new RunModel(Runnable::run);
        m.run(null);
        assertTrue(m.failedProperty().get());
        assertEquals("No backend to run on.", m.statusProperty().get());
        m.sinksProperty().set(true);
        assertFalse(m.failedProperty().get());
        assertEquals("", m.statusProperty().get());
    }
}
