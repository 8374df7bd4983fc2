"""The Java engine as oracle: one JVM (SawOracle.java run against saw.jar) answers every config of the session."""

import json
import os
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))


class Oracle:
    def __init__(self, jar):
        self.proc = subprocess.Popen(["java", "-cp", jar, os.path.join(HERE, "SawOracle.java")],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8")

    def ask(self, fmt, config):
        """saw's export of `config` (a dict) in format `fmt`, or {"error": "PATH: MESSAGE"} when saw refuses it."""
        self.proc.stdin.write(fmt + "\t" + json.dumps(config) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the Java oracle stopped (exit {self.proc.poll()}) on {json.dumps(config)[:300]}")
        return json.loads(line)

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


@pytest.fixture(scope="session")
def oracle():
    jar = os.environ.get("SAW_JAR")
    if not jar:
        pytest.skip("SAW_JAR is not set: the comparison with saw's Java engine needs saw.jar "
                    "(SAW_JAR=app/target/saw.jar after mvn package)")
    if not os.path.isfile(jar):
        pytest.fail(f"SAW_JAR={jar} does not exist; build it with mvn -B verify (or package)")
    o = Oracle(jar)
    yield o
    o.close()
