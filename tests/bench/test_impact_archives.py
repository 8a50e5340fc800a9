"""Release archives the impact bench reads: an sdist and a pure-Python wheel of the same
release give the same package, so the evaluation set may fetch the cheaper one."""

from __future__ import annotations

import io
import tarfile
import zipfile
from pathlib import Path

from bench.impact.eval_set import _archive_files, locate_package
from bench.impact.repos import every_file, unpack_release

MODULES = {
    "demo/__init__.py": "from .core import run\n",
    "demo/core.py": "def run() -> int:\n    return 1\n",
    "demo/sub/__init__.py": "",
}


def _sdist(path: Path) -> Path:
    files = {**MODULES, "tests/__init__.py": "", "demo.egg-info/top_level.txt": "demo\n"}
    with tarfile.open(path, "w:gz") as tar:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(f"demo-1.0/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def _wheel(path: Path) -> Path:
    files = {**MODULES, "demo-1.0.dist-info/top_level.txt": "demo\n"}
    files["demo-1.0.dist-info/RECORD"] = ""
    with zipfile.ZipFile(path, "w") as wheel:
        for name, text in files.items():
            wheel.writestr(name, text)
    return path


def test_sdist_and_wheel_locate_the_same_import_package(tmp_path: Path) -> None:
    sdist = _sdist(tmp_path / "demo-1.0.tar.gz")
    wheel = _wheel(tmp_path / "demo-1.0-py3-none-any.whl")

    found = []
    for archive in (sdist, wheel):
        files, listed = _archive_files(archive)
        layout = locate_package(files, "demo", listed)
        assert layout is not None
        found.append((layout.import_package, layout.search_path, layout.modules, listed))

    assert found == [("demo", ".", 3, {"demo"}), ("demo", ".", 3, {"demo"})]


def test_a_wheel_unpacks_as_is_and_an_sdist_without_its_top_directory(tmp_path: Path) -> None:
    from_wheel, from_sdist = tmp_path / "w", tmp_path / "s"
    unpack_release(_wheel(tmp_path / "demo-1.0-py3-none-any.whl"), from_wheel, every_file)
    unpack_release(_sdist(tmp_path / "demo-1.0.tar.gz"), from_sdist, every_file)

    for tree in (from_wheel, from_sdist):
        assert (tree / "demo" / "core.py").read_text() == MODULES["demo/core.py"]
    assert not (from_sdist / "demo-1.0").exists()


def _npm_tarball(path: Path, files: dict[str, str]) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(f"package/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def test_the_layout_draw_reads_typings_layouts_from_an_npm_tarball(tmp_path: Path) -> None:
    from bench.impact.eval_set import declaration_layout

    dual = '{"exports": {".": {"import": {"types": "./i.d.mts"}, "require": "./i.cjs"}}}'
    chained = {
        "package.json": dual,
        "i.d.mts": "export { run as start } from './run.mjs';\n",
        "run.d.mts": "export declare function run(): void;\n",
    }
    plain = {
        "package.json": '{"types": "index.d.ts"}',
        "index.d.ts": "export declare function run(): void;\n",
    }
    no_types = {"package.json": '{"exports": {".": {"types": "./x.d.ts"}}}', "x.js": ""}

    assert declaration_layout(_npm_tarball(tmp_path / "a.tgz", chained)) == [
        "d.mts/d.cts",
        "exports-types",
        "re-export chain",
    ]
    assert declaration_layout(_npm_tarball(tmp_path / "b.tgz", plain)) == []
    assert declaration_layout(_npm_tarball(tmp_path / "c.tgz", no_types)) == []
    bundled = {**plain, "index.d.ts": "export declare const x: 1;\n" * 5000}
    assert declaration_layout(_npm_tarball(tmp_path / "d.tgz", bundled)) == ["bundled"]


def test_the_entry_draw_reads_the_typings_entrys_shape_from_an_npm_tarball(tmp_path: Path) -> None:
    """The entry-shape stratum asks node10's typings entry for ``export =`` (of an imported
    module or not) and ``export as namespace``, or the tarball for many declaration files;
    a plain ES-module entry has none of these and is not drawn."""
    from bench.impact.eval_set import MANY_DECLARATIONS, entry_layout

    umd = {
        "package.json": '{"types": "index.d.ts", "main": "dist/x.js"}',
        "index.d.ts": "import * as x from './types/dist/x';\nexport as namespace x;\nexport = x;\n",
        "types/dist/x.d.ts": "declare function init(): void;\nexport { init };\n",
    }
    by_main = {
        "package.json": '{"main": "./lib/api.js"}',
        "lib/api.d.ts": "declare const api: { get(): void };\nexport = api;\n",
    }
    plain = {
        "package.json": '{"types": "index.d.ts"}',
        "index.d.ts": "export declare function run(): void;\n",
    }
    many = {**plain, **{f"types/m{i}.d.ts": "export {};\n" for i in range(MANY_DECLARATIONS)}}

    assert entry_layout(_npm_tarball(tmp_path / "a.tgz", umd)) == [
        "export-equals",
        "export-equals-imported",
        "umd-namespace",
    ]
    assert entry_layout(_npm_tarball(tmp_path / "b.tgz", by_main)) == ["export-equals"]
    assert entry_layout(_npm_tarball(tmp_path / "c.tgz", plain)) == []
    assert entry_layout(_npm_tarball(tmp_path / "d.tgz", many)) == ["many-declarations"]
