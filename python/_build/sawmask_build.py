"""PEP 517 backend: setuptools' when it can build wheels, else a small one for this pure-Python package.

setuptools before 70.1 needs the separate `wheel` package to build a wheel, and machines without an index (CI
here) cannot fetch it for build isolation; `pip install --no-build-isolation ./python` must still work there. The
fallback writes the same wheel setuptools would for a pure package: sawmask/*.py plus PEP 621 metadata.
"""

import base64
import hashlib
import os
import tomllib
import zipfile

try:
    import setuptools.build_meta as _setuptools
    from setuptools.command.bdist_wheel import bdist_wheel as _check  # noqa: F401  (setuptools >= 70.1)
    _OWN = False
except ImportError:
    try:
        import wheel  # noqa: F401
        import setuptools.build_meta as _setuptools
        _OWN = False
    except ImportError:
        _OWN = True

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _project():
    with open(os.path.join(HERE, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)["project"]


def _metadata():
    p = _project()
    lines = ["Metadata-Version: 2.1", f"Name: {p['name']}", f"Version: {p['version']}", f"Summary: {p['description']}",
             f"Requires-Python: {p['requires-python']}"]
    lines += [f"Requires-Dist: {d}" for d in p.get("dependencies", [])]
    for extra, deps in p.get("optional-dependencies", {}).items():
        lines.append(f"Provides-Extra: {extra}")
        lines += [f"Requires-Dist: {d}; extra == \"{extra}\"" for d in deps]
    return "\n".join(lines) + "\n"


def _dist_info():
    p = _project()
    return f"{p['name']}-{p['version']}.dist-info", f"{p['name']}-{p['version']}-py3-none-any.whl"


def get_requires_for_build_wheel(config_settings=None):
    return [] if _OWN else _setuptools.get_requires_for_build_wheel(config_settings)


def get_requires_for_build_sdist(config_settings=None):
    return [] if _OWN else _setuptools.get_requires_for_build_sdist(config_settings)


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    if not _OWN:
        return _setuptools.prepare_metadata_for_build_wheel(metadata_directory, config_settings)
    info, _ = _dist_info()
    os.makedirs(os.path.join(metadata_directory, info), exist_ok=True)
    with open(os.path.join(metadata_directory, info, "METADATA"), "w", encoding="utf-8") as f:
        f.write(_metadata())
    return info


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    if not _OWN:
        return _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)
    info, name = _dist_info()
    files = {}
    pkg = os.path.join(HERE, "sawmask")
    for f in sorted(os.listdir(pkg)):
        if f.endswith(".py"):
            with open(os.path.join(pkg, f), "rb") as fh:
                files[f"sawmask/{f}"] = fh.read()
    files[f"{info}/METADATA"] = _metadata().encode()
    files[f"{info}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: sawmask_build\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    record = []
    for path, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(data)}")
    record.append(f"{info}/RECORD,,")
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for path, data in files.items():
            z.writestr(path, data)
    return name


def build_sdist(sdist_directory, config_settings=None):
    if not _OWN:
        return _setuptools.build_sdist(sdist_directory, config_settings)
    raise NotImplementedError("building an sdist needs setuptools >= 70.1 or the wheel package")
