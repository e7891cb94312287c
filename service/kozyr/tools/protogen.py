"""Generate (or check) the Python stubs under service/kozyr/_proto from protos/.

`python -m kozyr.tools.protogen` regenerates them with grpcio-tools and mypy-protobuf (.pyi
type stubs), and the Connect server stubs (kozyr_connect.py, for the web port) with
protoc-gen-connectrpc over the same google.protobuf messages;
`--check` regenerates into a scratch folder and fails when the committed files differ, so CI
catches a proto change without fresh stubs.
"""

from __future__ import annotations

import argparse
import filecmp
import shutil
import sys
import sysconfig
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PROTOS = ROOT / "protos"
OUT = Path(__file__).resolve().parents[1] / "_proto"  # kozyr/_proto


def generate(out: Path) -> None:
    """Run protoc (from grpcio-tools) on every proto into `out` and fix the package imports."""
    from grpc_tools import protoc  # imported here: only needed at generation time

    scripts = Path(sysconfig.get_paths()["scripts"])
    sources = sorted(str(p.relative_to(PROTOS)) for p in PROTOS.rglob("*.proto"))
    include = Path(protoc.__file__).parent / "_proto"
    args = [
        "protoc",
        f"-I{PROTOS}",
        f"-I{include}",
        f"--python_out={out}",
        f"--grpc_python_out={out}",
        f"--plugin=protoc-gen-mypy={scripts / 'protoc-gen-mypy'}",
        f"--plugin=protoc-gen-mypy_grpc={scripts / 'protoc-gen-mypy_grpc'}",
        f"--mypy_out={out}",
        f"--mypy_grpc_out={out}",
        f"--plugin=protoc-gen-connectrpc={scripts / 'protoc-gen-connectrpc'}",
        f"--connectrpc_out={out}",
        "--connectrpc_opt=protobuf=google",
        *sources,
    ]
    if protoc.main(args) != 0:
        raise SystemExit("protoc failed")
    for path in out.rglob("*"):
        if path.suffix in (".py", ".pyi"):
            text = path.read_text()
            # protoc writes imports relative to protos/; the stubs live in kozyr._proto.
            text = text.replace("from kozyr.v1 import", "from kozyr._proto.kozyr.v1 import")
            text = text.replace("import kozyr.v1.", "import kozyr._proto.kozyr.v1.")
            path.write_text(text)
    for pkg in [out, *(d for d in out.rglob("*") if d.is_dir())]:
        (pkg / "__init__.py").touch()


def main() -> int:
    """Entry point: regenerate, or with --check compare with the committed stubs."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="fail if the stubs are stale")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp) / "_proto"
        fresh.mkdir()
        generate(fresh)
        if args.check:
            stale = _diff(fresh, OUT)
            if stale:
                print("stale generated stubs (run `make proto`):", *stale, sep="\n  ")
                return 1
            print("generated stubs are fresh")
            return 0
        shutil.rmtree(OUT, ignore_errors=True)
        shutil.copytree(fresh, OUT)
    print(f"generated stubs in {OUT.relative_to(ROOT)}")
    return 0


def _diff(a: Path, b: Path) -> list[str]:
    names = {p.relative_to(a) for p in a.rglob("*") if p.is_file()}
    names |= {
        p.relative_to(b) for p in b.rglob("*") if p.is_file() and "__pycache__" not in p.parts
    }
    return sorted(
        str(n)
        for n in names
        if not ((a / n).exists() and (b / n).exists() and filecmp.cmp(a / n, b / n, shallow=False))
    )


if __name__ == "__main__":
    sys.exit(main())
