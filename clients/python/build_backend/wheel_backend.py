"""A minimal PEP 517 build backend for this one pure-Python package, standard library only.

It exists so `pip install ./clients/python` works offline on a bare Python (no setuptools or wheel needed).
"""

import base64
import hashlib
import io
import os
import tarfile
import zipfile

NAME = "skillsmith_client"
DIST = "skillsmith_client"
VERSION = "0.1.0"
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

METADATA = f"""Metadata-Version: 2.1
Name: skillsmith-client
Version: {VERSION}
Summary: Record agent sessions into a Skillsmith server, recall learned skills and give feedback (standard library only)
License: MIT
Requires-Python: >=3.9
"""

WHEEL = """Wheel-Version: 1.0
Generator: skillsmith wheel_backend
Root-Is-Purelib: true
Tag: py3-none-any
"""


def _package_files():
    root = os.path.join(HERE, NAME)
    for name in sorted(os.listdir(root)):
        if name.endswith(".py"):
            yield f"{NAME}/{name}", os.path.join(root, name)


def _record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    info = os.path.join(metadata_directory, f"{DIST}-{VERSION}.dist-info")
    os.makedirs(info, exist_ok=True)
    with open(os.path.join(info, "METADATA"), "w") as f:
        f.write(METADATA)
    with open(os.path.join(info, "WHEEL"), "w") as f:
        f.write(WHEEL)
    return os.path.basename(info)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    filename = f"{DIST}-{VERSION}-py3-none-any.whl"
    info = f"{DIST}-{VERSION}.dist-info"
    records = []
    with zipfile.ZipFile(os.path.join(wheel_directory, filename), "w", zipfile.ZIP_DEFLATED) as whl:
        for arc, path in _package_files():
            with open(path, "rb") as f:
                data = f.read()
            whl.writestr(arc, data)
            records.append(_record_line(arc, data))
        for name, text in (("METADATA", METADATA), ("WHEEL", WHEEL)):
            data = text.encode()
            whl.writestr(f"{info}/{name}", data)
            records.append(_record_line(f"{info}/{name}", data))
        records.append(f"{info}/RECORD,,")
        whl.writestr(f"{info}/RECORD", "\n".join(records) + "\n")
    return filename


def build_sdist(sdist_directory, config_settings=None):
    base = f"{DIST}-{VERSION}"
    filename = f"{base}.tar.gz"
    with tarfile.open(os.path.join(sdist_directory, filename), "w:gz") as tar:
        for rel in ("pyproject.toml", "README.md", "build_backend/wheel_backend.py"):
            tar.add(os.path.join(HERE, rel), arcname=f"{base}/{rel}")
        for arc, path in _package_files():
            tar.add(path, arcname=f"{base}/{arc}")
        data = (METADATA).encode()
        ti = tarfile.TarInfo(f"{base}/PKG-INFO")
        ti.size = len(data)
        tar.addfile(ti, io.BytesIO(data))
    return filename
