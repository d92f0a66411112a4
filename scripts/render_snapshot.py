"""Every page as AppTest renders it, written out as text, to prove a refactor changes nothing a learner sees.

    python scripts/render_snapshot.py OUT_DIR [--pages 3_ 9_ ...]

For each page (``ui.nav.PAGES``, or those whose file name starts with one of ``--pages``) and each language, the
page opened, then after "Just show me", then after each of its presets: every element of the main area and the
sidebar in order, as its protobuf text (charts' and tables' Arrow data as CSV). One file per page and language;
``diff -r before/ after/`` then shows what changed. Two runs of the same code write the same files.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pyarrow as pa  # noqa: E402
from google.protobuf import text_format  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

from ui import nav, page  # noqa: E402


def arrow_csv(data: bytes) -> str:
    if not data:
        return ""
    return pa.ipc.open_stream(io.BytesIO(data)).read_all().to_pandas().to_csv(index=False)


def element_text(node) -> str:
    proto = getattr(node, "proto", None)
    if proto is None:
        return type(node).__name__
    proto = type(proto).FromString(proto.SerializeToString())  # a copy to strip
    extra = []
    if hasattr(proto, "datasets"):  # a Vega-Lite chart: its spec and each dataset as CSV
        for d in proto.datasets:
            extra.append(f"dataset {d.name}:\n{arrow_csv(d.data.data)}")
        spec = json.loads(proto.spec) if proto.spec else {}
        extra.append(json.dumps(spec, sort_keys=True, indent=1, ensure_ascii=False))
        del proto.datasets[:]
        proto.spec = ""
    if type(proto).__name__ == "Arrow" and proto.data:
        extra.append(arrow_csv(proto.data))
        proto.data = b""
    if type(proto).__name__ == "DownloadButton":
        proto.url = ""  # a media file's address: a hash of the bytes, which the table above already shows
    body = text_format.MessageToString(proto, as_utf8=True)
    return f"{type(node).__name__}\n{body}" + "".join(f"\n{x}" for x in extra)


def walk(node, out: list[str]) -> None:
    children = getattr(node, "children", None)
    if isinstance(children, dict):
        out.append(f"<{type(node).__name__} {getattr(node, 'proto', '') and text_format.MessageToString(node.proto, as_one_line=True, as_utf8=True)}>")  # noqa: E501
        for k in sorted(children):
            walk(children[k], out)
        out.append(f"</{type(node).__name__}>")
    else:
        out.append(element_text(node))


WIDGET_ID = re.compile(r"\$\$ID-[0-9a-f]{32}-")  # a widget's id hashes the script's path: the checkout's place


def dump(at: AppTest, label: str) -> str:
    out = [f"===== {label}", f"exceptions: {[e.message for e in at.exception]}"]
    walk(at.main, out)
    out.append("----- sidebar")
    walk(at.sidebar, out)
    return WIDGET_ID.sub("$$ID-", "\n".join(out))


def views(path: pathlib.Path, lang: str) -> list[str]:
    def fresh():
        at = AppTest.from_file(str(path), default_timeout=300)
        at.query_params["lang"] = lang
        return at.run()

    at = fresh()
    shots = [dump(at, "opened")]
    show = [b for b in at.button if (b.key or "").endswith("_show")]
    if show:
        show[0].click().run()
        shots.append(dump(at, "just shown"))
    controls = [c for c in at.segmented_control if c.key == page.PRESETS_KEY]
    for name in (controls[0].options if controls else []):
        try:
            at.segmented_control(key=page.PRESETS_KEY).set_value(name).run()
            shots.append(dump(at, f"preset {name}"))
        except Exception as err:  # AppTest cannot always set a widget drawn with a format_func: say so, go on
            shots.append(f"===== preset {name}: AppTest could not run it ({type(err).__name__}: {err})")
            at = fresh()
    return shots


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--pages", nargs="*", default=None)
    ap.add_argument("--langs", nargs="*", default=["en", "zh"])
    args = ap.parse_args()
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for info in nav.PAGES:
        path = ROOT / info.path
        if args.pages and not any(path.name.startswith(p) for p in args.pages):
            continue
        for lang in args.langs:
            text = "\n".join(views(path, lang))
            (out / f"{path.stem}.{lang}.txt").write_text(text, encoding="utf-8")
            print(f"{path.stem} {lang}: {hashlib.sha256(text.encode()).hexdigest()[:12]}", flush=True)


if __name__ == "__main__":
    main()
