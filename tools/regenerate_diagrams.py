"""Regenerate every committed figure in diagrams/ and diagrams/README.md.

    python tools/regenerate_diagrams.py            # write .dot, .svg, .png (if < 150 KB)
    python tools/regenerate_diagrams.py --check    # exit 1 if a .dot or the README is stale

The list of figures and how each is built live in `compiler.diagram.catalog`; this
script only writes files. PNGs are kept only when small (the SVG is the figure; a PNG
over PNG_LIMIT bytes is removed rather than committed).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from compiler.diagram import render, to_dot  # noqa: E402
from compiler.diagram.catalog import FIGURES, build, readme_text  # noqa: E402

PNG_LIMIT = 150_000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "diagrams", help="target folder")
    parser.add_argument("--check", action="store_true", help="only report stale files")
    args = parser.parse_args(argv)
    stale: list[str] = []
    for figure in FIGURES:
        diagram = build(figure)
        dot = to_dot(diagram)
        base = args.out / figure.stem
        if args.check:
            current = base.with_suffix(".dot")
            if not current.exists() or current.read_text(encoding="utf-8") != dot:
                stale.append(str(current))
            continue
        base.parent.mkdir(parents=True, exist_ok=True)
        base.with_suffix(".dot").write_text(dot, encoding="utf-8")
        base.with_suffix(".svg").write_bytes(render(diagram, ".svg"))
        png = render(diagram, ".png")
        png_path = base.with_suffix(".png")
        if len(png) <= PNG_LIMIT:
            png_path.write_bytes(png)
        elif png_path.exists():
            png_path.unlink()
        print(
            f"wrote {base.relative_to(args.out)}.{{dot,svg{',png' if len(png) <= PNG_LIMIT else ''}}}"
        )
    readme = args.out / "README.md"
    text = readme_text()
    if args.check:
        if not readme.exists() or readme.read_text(encoding="utf-8") != text:
            stale.append(str(readme))
        for name in stale:
            print(f"stale: {name}", file=sys.stderr)
        return 1 if stale else 0
    readme.write_text(text, encoding="utf-8")
    print(f"wrote {readme.relative_to(args.out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
