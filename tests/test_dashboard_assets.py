"""dilemmas/dashboard/assets.py: the npm packages it derives from the installed Solara, and the cache
that `make test` (or `python -m dilemmas.dashboard.assets`) filled for the offline dashboard.

No test here uses the network: the cache tests read the folder the Makefile filled, and the
tests of filling replace `npm pack` by a local tarball."""

import io
import re
import tarfile
from pathlib import Path

import pytest

from dilemmas.dashboard import assets

ROOT = Path(__file__).resolve().parents[1]



# <name>@<literal version> right after the proxy prefix, as a plain reading of the sources
_LITERAL = re.compile(r"(?:\{\{\s*cdn\s*\}\}|getCdn\(\)\})/((?:@[\w.-]+/)?[\w.-]+@\d[\w.-]*)/")


@pytest.fixture(scope="module")
def derived():
    return assets.derive()


def _solara_file(*parts):
    return assets.solara_dir().joinpath(*parts)


def test_derived_packages_include_every_package_the_page_template_loads(derived):
    template = _solara_file("server", "templates", "solara.html.j2").read_text()
    referenced = set(_LITERAL.findall(template))
    assert referenced, (
        "found no {{cdn}}/<package>@<version>/ in solara.html.j2: has Solara changed its template?"
    )
    assert referenced <= set(derived.packages)
    # the font-awesome stylesheet comes from a setting ({{cdn}}{{assets.fontawesome_path}})
    from solara.server import settings

    fontawesome = settings.assets.fontawesome_path.lstrip("/").split("/")[0]
    assert fontawesome in derived.packages


def test_derived_packages_include_what_the_dashboard_components_load(derived):
    # the rules pages use Markdown (katex, mermaid); Mesa's SolaraViz, which a user may still
    # run on these models, draws with FigureAltair (vega) and GridDraggable
    for parts in [
        ("widgets", "vue", "vegalite.vue"),
        ("widgets", "vue", "gridlayout.vue"),
        ("components", "markdown.py"),
    ]:
        referenced = set(_LITERAL.findall(_solara_file(*parts).read_text()))
        assert referenced, f"no asset reference found in {'/'.join(parts)}"
        assert referenced <= set(derived.packages), (parts, referenced - set(derived.packages))


def test_every_derived_package_names_the_files_requested():
    derived = assets.derive()
    names = {p.name for p in derived.packages.values()}
    assert {"requirejs", "@widgetti/solara-vuetify-app", "vega", "vega-lite", "vega-embed"} <= names
    for package in derived.packages.values():
        assert package.files, package.spec
        assert "{{" not in package.spec and "${" not in package.spec
    requirejs = next(p for p in derived.packages.values() if p.name == "requirejs")
    assert {"require.js", "require.min.js"} <= requirejs.files


def test_derive_reads_scoped_names_ranges_and_template_variables(tmp_path):
    (tmp_path / "server").mkdir()
    (tmp_path / "server" / "page.html.j2").write_text(
        '<script src="{{cdn}}/@scope/app@1.2.3/dist/app{{ipywidget_major_version}}.js"></script>\n'
        '<link href="{{ cdn }}{{assets.fontawesome_path}}">\n'
    )
    (tmp_path / "widget.vue").write_text(
        "x = `${this.getCdn()}/vega@5/build/vega.min.js`; y = `${this.getCdn()}/echarts@${version}/dist/echarts.js`"
    )
    (tmp_path / "website").mkdir()
    (tmp_path / "website" / "docs.vue").write_text("`${this.getCdn()}/docs-only@1.0.0/x.js`")
    variables = {
        "ipywidget_major_version": "8",
        "assets.fontawesome_path": "/font-awesome@4.5.0/css/fa.min.css",
    }
    derived = assets.derive(tmp_path, variables)
    assert set(derived.packages) == {"@scope/app@1.2.3", "vega@5", "font-awesome@4.5.0"}
    assert derived.packages["@scope/app@1.2.3"].name == "@scope/app"
    assert derived.packages["@scope/app@1.2.3"].files == {"dist/app8.js"}
    assert derived.packages["vega@5"].version == "5"
    assert derived.packages["font-awesome@4.5.0"].files == {"css/fa.min.css"}
    assert [reference for reference, _ in derived.skipped] == [
        "${this.getCdn()}/echarts@${version}/dist/echarts.js"
    ]


def _fake_npm_pack(calls, fail=False):
    def npm_pack(spec, into):
        calls.append(spec)
        if fail:
            raise assets.AssetError(f"`npm pack {spec}` failed (exit 1)")
        tarball = into / "pkg.tgz"
        with tarfile.open(tarball, "w:gz") as archive:
            for name, data in [
                ("package/require.js", b"// requirejs"),
                ("package/package.json", b"{}"),
            ]:
                info = tarfile.TarInfo(name)
                info.size = len(data)
                archive.addfile(info, io.BytesIO(data))
        return tarball, "2.3.6"

    return npm_pack


def test_fill_unpacks_each_package_once_and_adds_the_missing_minified_file(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(assets, "npm_pack", _fake_npm_pack(calls))
    packages = {
        "requirejs@2.3.6": assets.Package(
            "requirejs@2.3.6", "requirejs", "2.3.6", {"require.js", "require.min.js"}
        )
    }
    cache = tmp_path / "cache"
    assets.fill(cache, packages, log=lambda line: None)
    assert (cache / "requirejs@2.3.6" / "require.min.js").read_bytes() == b"// requirejs"
    assert assets.missing_files(cache, packages) == []
    assert [p.name for p in cache.iterdir()] == ["requirejs@2.3.6"]  # no temporary folder left
    assets.fill(cache, packages, log=lambda line: None)
    assert calls == ["requirejs@2.3.6"]  # the second run kept the package


def test_a_failing_npm_leaves_no_partial_package(tmp_path, monkeypatch):
    monkeypatch.setattr(assets, "npm_pack", _fake_npm_pack([], fail=True))
    packages = {"@s/p@1.0.0": assets.Package("@s/p@1.0.0", "@s/p", "1.0.0", {"x.js"})}
    with pytest.raises(assets.AssetError, match="npm pack"):
        assets.fill(tmp_path, packages, log=lambda line: None)
    assert list(tmp_path.iterdir()) == []


def _filled_cache():
    cache = ROOT / ".solara-assets"
    if not cache.is_dir():
        pytest.fail(
            f"{cache} is missing: run `python -m dilemmas.dashboard.assets` (or `make test`, which runs it) first"
        )
    return cache


def test_the_cache_holds_every_file_solara_requests(derived):
    cache = _filled_cache()
    missing = assets.missing_files(cache, derived.packages)
    assert not missing, f"{cache} lacks {missing}: run `python -m dilemmas.dashboard.assets`"


def test_solara_finds_the_cached_files_without_the_network(derived, monkeypatch):
    # Solara's own lookup (what /_solara/cdn/<path> serves), with the CDN fetch made to fail
    from solara.server import cdn_helper

    def no_network(url):
        raise AssertionError(f"Solara would fetch {url}: the cache layout does not match")

    monkeypatch.setattr(cdn_helper, "fetch_from_cdn", no_network)
    cache = _filled_cache()
    for package in derived.packages.values():
        for name in package.files:
            path = cdn_helper.get_path(cache, f"{package.spec}/{name}")
            assert path == cache / package.spec / name and path.stat().st_size > 0
