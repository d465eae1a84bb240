"""Fill a local cache of Solara's front-end files, so the dashboard works without internet.

Solara's server does not ship the JavaScript and CSS of its web page: the page asks for them
under ``/_solara/cdn/<package>@<version>/<file>`` and the server fetches each from a CDN
(cdn.jsdelivr.net) the first time, keeping a copy in a cache folder. On a machine without
internet, or one that reaches only the package registries, that fetch fails and the page
stays blank. The server reads the cache folder first, though, and the environment variable
``SOLARA_ASSETS_PROXY_CACHE_DIR`` says where it is; this script fills such a folder from the
npm registry (``npm pack``), so the server never needs the CDN.

When to run it: before serving the dashboard on a machine without internet, and again after
an upgrade of Solara. ``dilemmas dashboard``, ``make dashboard`` and ``make test`` run it for
you (``make`` runs it again only when the virtual environment or this script changed). Then
serve with::

    SOLARA_ASSETS_PROXY_CACHE_DIR="$PWD/.solara-assets" .venv/bin/solara run dilemmas.dashboard.app

Usage::

    python -m dilemmas.dashboard.assets [--cache DIR]   # fill DIR (default: default_cache())
    python -m dilemmas.dashboard.assets --list     # the derived packages and files, no network
    python -m dilemmas.dashboard.assets --check    # exit 1 if a file is missing, no network

Which packages: the script does not keep its own list. It reads the installed Solara's page
template and front-end components for the URLs they build on the asset proxy (``{{cdn}}/...``
in the Jinja templates, ``${this.getCdn()}/...`` in the Vue and Python components), fills in
the template variables the server fills in (the ipywidgets major version, the font-awesome
path from Solara's settings), and keeps every reference with a literal npm version. A
reference whose version is computed in JavaScript (the echarts, markdown-editor and SQL
components, which the dashboard does not use) is reported and skipped.

Cache layout (what Solara's ``cdn_helper.get_path`` reads): the URL path after
``/_solara/cdn/`` is taken as is, below the cache folder. So each package is unpacked (the
contents of its tarball's ``package/`` folder) into ``DIR/<name>@<version as requested>/``:
``DIR/requirejs@2.3.6/require.js``, ``DIR/@widgetti/solara-vuetify-app@10.1.1/dist/...``, and,
for a version range, the range itself: ``DIR/vega@5/build/vega.min.js`` holds what ``npm pack
vega@5`` resolved to. The CDN serves ``x.min.js`` from ``x.js`` when a package lacks the
minified file (requirejs ships only ``require.js``, and Solara's Markdown asks for
``require.min.js``); the script copies the file in that case.

Each package is unpacked into a temporary folder inside DIR and renamed into place, so an
interrupted run leaves no half package; a package folder already there is kept (delete it to
fetch it again).
"""

from __future__ import annotations

import argparse
import os
import json
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ENV_VAR = "SOLARA_ASSETS_PROXY_CACHE_DIR"


def default_cache() -> Path:
    """The cache folder when none is named: ``$SOLARA_ASSETS_PROXY_CACHE_DIR`` if set, else
    ``dilemmas/solara-assets`` in the user's cache folder (``$XDG_CACHE_HOME`` or
    ``~/.cache``), so an installed package fills it once for every project."""
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "dilemmas" / "solara-assets"

# Where a URL on Solara's asset proxy starts: in the Jinja page template the server fills
# `{{cdn}}` with "<root>/_solara/cdn"; the Vue components call `this.getCdn()`.
_PROXY_PREFIX = r"(?:\{\{\s*cdn\s*\}\}|\$\{\s*this\.getCdn\(\)\s*\})"
_REFERENCE = re.compile(_PROXY_PREFIX + r"(?P<path>[^\s\"'`<>()]*)")
_JINJA_VAR = re.compile(r"\{\{\s*([\w.]+)\s*\}\}")
# <name>@<version>/<file>, the name possibly scoped (@scope/name)
_SPEC = re.compile(
    r"^(?P<spec>(?P<name>(?:@[\w.-]+/)?[\w.-]+)@(?P<version>[\w.+~^<>=*-]+))(?:/(?P<file>.*))?$"
)
_SCANNED_SUFFIXES = {".j2", ".html", ".vue", ".py", ".js"}
# the solara package also holds the sources of Solara's own documentation website
_SKIPPED_DIRS = {"website", "__pycache__"}


@dataclass
class Package:
    spec: str  # as the page requests it, and the name of its cache folder: "vega@5"
    name: str
    version: str  # exact version or npm range, as requested
    files: set[str] = field(default_factory=set)  # files inside the package the page requests
    sources: set[str] = field(default_factory=set)  # solara files that reference it


@dataclass
class Derived:
    packages: dict[str, Package]
    skipped: list[tuple[str, str]]  # (reference, solara file) whose version is computed in JS


def solara_dir() -> Path:
    import solara

    return Path(solara.__file__).resolve().parent


def template_variables() -> dict[str, str]:
    """The values solara's server fills into the template for the proxy URLs (server.py)."""
    import ipywidgets
    from solara.server import settings

    values = {"ipywidget_major_version": ipywidgets.__version__.split(".")[0]}
    for key, value in settings.assets.dict().items():
        values[f"assets.{key}"] = str(value)
    return values


def derive(root: Path | None = None, variables: dict[str, str] | None = None) -> Derived:
    """The npm packages (and their files) that the installed Solara loads through its proxy."""
    root = solara_dir() if root is None else root
    variables = template_variables() if variables is None else variables
    packages: dict[str, Package] = {}
    skipped: list[tuple[str, str]] = []
    for source in sorted(root.rglob("*")):
        if source.suffix not in _SCANNED_SUFFIXES or _SKIPPED_DIRS & set(
            source.relative_to(root).parts
        ):
            continue
        text = source.read_text(encoding="utf-8", errors="replace")
        relative = str(source.relative_to(root.parent))
        for match in _REFERENCE.finditer(text):
            path = _JINJA_VAR.sub(
                lambda m: variables.get(m.group(1), m.group(0)), match.group("path")
            )
            path = path.lstrip("/")
            parsed = _SPEC.match(path)
            if "${" in path or "{{" in path or parsed is None:
                skipped.append((match.group(0), relative))
                continue
            package = packages.setdefault(
                parsed["spec"], Package(parsed["spec"], parsed["name"], parsed["version"])
            )
            if parsed["file"]:
                package.files.add(parsed["file"])
            package.sources.add(relative)
    return Derived(packages, skipped)


def missing_files(cache: Path, packages: dict[str, Package]) -> list[str]:
    """The requested files (relative to the cache) that the cache lacks."""
    return sorted(
        f"{p.spec}/{f}"
        for p in packages.values()
        for f in p.files
        if not (cache / p.spec / f).is_file()
    )


class AssetError(RuntimeError):
    pass


def _npm() -> str:
    npm = shutil.which("npm")
    if npm is None:
        raise AssetError(
            "npm was not found on PATH; install Node.js and npm (Debian: apt-get install npm)"
        )
    return npm


def npm_pack(spec: str, into: Path) -> tuple[Path, str]:
    """Download the tarball of an npm package spec into `into`; its path and resolved version."""
    command = [_npm(), "pack", "--json", "--pack-destination", str(into), spec]
    result = subprocess.run(command, cwd=into, capture_output=True, text=True)
    if result.returncode != 0:
        tail = "\n".join((result.stderr or result.stdout).strip().splitlines()[-15:])
        raise AssetError(
            f"`npm {' '.join(command[1:])}` failed (exit {result.returncode}):\n{tail}"
        )
    version = "?"
    try:
        info = json.loads(result.stdout)[0]
        version = info.get("version", version)
        tarball = into / info["filename"]
    except (ValueError, LookupError, TypeError):
        tarballs = sorted(into.glob("*.tgz"))
        if len(tarballs) != 1:
            raise AssetError(
                f"`npm pack {spec}` left no single tarball in {into}: {result.stdout[-500:]}"
            )
        tarball = tarballs[0]
    if not tarball.is_file():
        raise AssetError(f"`npm pack {spec}` reported {tarball.name}, which is not in {into}")
    return tarball, version


def unpack(tarball: Path, into: Path) -> Path:
    """Extract an npm tarball; the folder its files are in (npm's is `package/`)."""
    with tarfile.open(tarball) as archive:
        archive.extractall(into, filter="data")
    tops = [p for p in into.iterdir() if p.is_dir()]
    if len(tops) != 1:
        raise AssetError(
            f"{tarball.name} does not hold one top folder (found {[p.name for p in tops]})"
        )
    return tops[0]


def add_minified_copies(folder: Path, files: set[str]) -> list[str]:
    """Copy x.js to a requested x.min.js (x.css to x.min.css) that the package lacks, as the CDN
    serves it; the names copied."""
    copied = []
    for name in sorted(files):
        target = folder / name
        for suffix in (".js", ".css"):
            plain = folder / name.replace(f".min{suffix}", suffix)
            if name.endswith(f".min{suffix}") and not target.exists() and plain.is_file():
                shutil.copyfile(plain, target)
                copied.append(name)
    return copied


def fill(cache: Path, packages: dict[str, Package], log=print) -> None:
    cache.mkdir(parents=True, exist_ok=True)
    for package in sorted(packages.values(), key=lambda p: p.spec):
        folder = cache / package.spec
        if folder.is_dir():
            copied = add_minified_copies(folder, package.files)
            log(
                f"kept     {package.spec}"
                + (f" (copied {', '.join(copied)} from the unminified files)" if copied else "")
            )
            continue
        with tempfile.TemporaryDirectory(dir=cache, prefix=".partial-") as temp:
            temp = Path(temp)
            (temp / "tarball").mkdir()
            tarball, version = npm_pack(package.spec, temp / "tarball")
            extracted = unpack(tarball, temp / "extracted")
            copied = add_minified_copies(extracted, package.files)
            folder.parent.mkdir(parents=True, exist_ok=True)
            extracted.rename(folder)  # same file system (inside the cache): atomic
        note = f" (copied {', '.join(copied)} from the unminified files)" if copied else ""
        resolved = "" if version == package.version else f" -> {package.name}@{version}"
        log(f"fetched  {package.spec}{resolved}{note}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--cache", type=Path, default=None, help=f"cache folder (default {default_cache()})"
    )
    action = parser.add_mutually_exclusive_group()
    action.add_argument(
        "--list", action="store_true", help="print the derived packages and files; fetch nothing"
    )
    action.add_argument(
        "--check",
        action="store_true",
        help="only check that the cache holds every file; fetch nothing",
    )
    args = parser.parse_args(argv)
    cache = (args.cache or default_cache()).resolve()

    derived = derive()
    if args.list:
        for package in sorted(derived.packages.values(), key=lambda p: p.spec):
            print(f"{package.spec}  (from {', '.join(sorted(package.sources))})")
            for name in sorted(package.files):
                print(f"    {name}")
        for reference, source in derived.skipped:
            print(f"skipped {reference}  (in {source}: no literal version)")
        return 0
    if not derived.packages:
        print(
            f"error: found no asset references in {solara_dir()}; has Solara changed its templates?",
            file=sys.stderr,
        )
        return 1

    if not args.check:
        print(
            f"Filling {cache} with {len(derived.packages)} npm packages the installed Solara loads"
        )
        try:
            fill(cache, derived.packages)
        except AssetError as e:
            print(f"error: {e}", file=sys.stderr)
            return 1
    missing = missing_files(cache, derived.packages)
    if missing:
        print(f"error: {cache} lacks {len(missing)} file(s) Solara asks for:", file=sys.stderr)
        for name in missing:
            print(f"    {name}", file=sys.stderr)
        return 1
    count = sum(len(p.files) for p in derived.packages.values())
    print(f"{cache} holds all {count} files Solara asks for; serve with {ENV_VAR}={cache}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
