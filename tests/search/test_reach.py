"""Where get_url and call_api may go: every redirect hop decided by the permission rules,
cloud metadata never, this machine and private networks only with leave.

Real sessions (the conversation, the search worker process, a scripted model over HTTP)
against loopback sites, and the worker's own contract with an injected resolver.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import trio

from harness.actors.search import SearchConfig, SearchService
from harness.actors.tools import HOP_ARG, address_refusal, url_nearness
from harness.conversation import SessionOptions, open_session
from harness.messages.tools import ToolInvoke
from tests.scripted import ScriptedModel, call, reply
from tests.search import _web
from tests.search.conftest import doc_urls


def _options(
    tmp_path: Path,
    model: ScriptedModel,
    mode: str,
    allow: tuple[str, ...] = (),
    deny: tuple[str, ...] = (),
) -> SessionOptions:
    workspace = tmp_path / "ws"
    workspace.mkdir(parents=True, exist_ok=True)
    return SessionOptions(
        workspace=str(workspace),
        home=str(tmp_path / "home"),
        provider="openai",
        models=("scripted",),
        base_url=model.base_url,
        permission_mode=mode,
        workers={"model": "harness.actors.model", "search": "harness.actors.search"},
        allow=allow,
        deny=deny,
    )


async def _run(tmp_path: Path, urls: list[str], mode: str, **rules: tuple[str, ...]) -> list[str]:
    """The tool results of a run that fetches *urls* in turn."""
    script = [reply("", call("get_url", url=u)) for u in urls] + [reply("done")]
    with ScriptedModel(script) as model:
        async with open_session(_options(tmp_path, model, mode, **rules)) as session:
            with trio.fail_after(60):
                await session.run("fetch them")
            return [m.content for m in session.history if m.role == "tool"]


def _site(page: bytes = b"<main><p>the page</p></main>") -> _web.Site:
    site = _web.Site()
    site.route("/", lambda req: _web.Page(body=page))
    return site


async def test_a_redirect_to_another_host_is_not_followed_past_the_allow_rule(
    tmp_path: Path,
) -> None:
    with _site(b"<main><p>other host</p></main>") as other, _site() as site:
        elsewhere = f"http://localhost:{other.url.rsplit(':', 1)[1]}/secret"
        site.routes.insert(0, ("/away", lambda req: _web.Redirect(elsewhere)))
        site.routes.insert(0, ("/near", lambda req: _web.Redirect("/page")))
        tools = await _run(
            tmp_path,
            [f"{site.url}/away", f"{site.url}/near"],
            "ask",
            allow=(f"get_url({site.url}/*)",),
        )
        visited = [s.path for s in other.seen]
    assert visited == []  # the other host was never asked
    assert (
        f"{site.url}/away redirects (HTTP 302) to {elsewhere}, which was not followed" in (tools[0])
    )
    assert "To fetch it, call get_url with that URL (the user will be asked)." in tools[0]
    # a hop the rule covers is followed
    assert "the page" in tools[1]
    assert f"reached from {site.url}/near by 1 redirect(s)" in tools[1]


async def test_each_hop_meets_the_deny_rules_and_the_near_address_question(
    tmp_path: Path,
) -> None:
    with _site() as other, _site() as site:
        port = other.url.rsplit(":", 1)[1]
        site.routes.insert(0, ("/denied", lambda req: _web.Redirect(f"{other.url}/x")))
        site.routes.insert(0, ("/home", lambda req: _web.Redirect(f"http://localhost:{port}/")))
        tools = await _run(
            tmp_path,
            [f"{site.url}/denied", f"{site.url}/home"],
            "auto",
            allow=(f"get_url({site.url}/*)",),
            deny=(f"get_url({other.url}/*)",),
        )
        visited = [s.path for s in other.seen]
    assert visited == []
    assert "which was not followed: denied by rule get_url(" in tools[0]
    assert "(the user will be asked)" not in tools[0]
    # auto mode does not wave a redirect through to this machine
    assert "which was not followed: get_url reaches this machine (localhost)" in tools[1]


async def test_loopback_asks_in_auto_mode_unless_a_rule_names_it(tmp_path: Path) -> None:
    with _site() as site:
        asked = await _run(tmp_path / "a", [f"{site.url}/p"], "auto")
        seen_before = len(site.seen)
        ruled = await _run(
            tmp_path / "b", [f"{site.url}/p"], "auto", allow=(f"get_url({site.url}/*)",)
        )
    assert seen_before == 0
    assert "get_url reaches a loopback address (this machine)" in asked[0]
    assert "The call was not run" in asked[0]
    assert "the page" in ruled[0]


async def test_a_name_that_resolves_near_needs_leave_from_the_hop(
    make_service: Callable[..., SearchService],
) -> None:
    async def resolver(host: str, port: int) -> list[str]:
        return ["127.0.0.1"]  # DNS says a public-looking name is this machine

    with _site() as site:
        port = site.url.rsplit(":", 1)[1]
        service = SearchService(SearchConfig(), resolver=resolver)
        url = f"http://intranet.example:{port}/p"
        try:
            refused = await service.invoke(
                ToolInvoke(name="get_url", arguments={"url": url, HOP_ARG: {"private": False}})
            )
            allowed = await service.invoke(
                ToolInvoke(name="get_url", arguments={"url": url, HOP_ARG: {"private": True}})
            )
        finally:
            await service.aclose()
    assert not refused.ok
    assert "intranet.example resolves to 127.0.0.1, a loopback address (this machine)" in (
        refused.output
    )
    assert refused.data["kind"] == "refused"
    assert allowed.ok
    assert "the page" in allowed.output
    assert [s.path for s in site.seen] == ["/p"]


async def test_every_cloud_metadata_address_is_refused_unasked(
    make_service: Callable[..., SearchService],
) -> None:
    service = make_service(page_timeout=3.0)
    for url in (
        "http://100.100.100.200/latest/meta-data/",  # Alibaba
        "http://192.0.0.192/opc/v1/instance/",  # Oracle
        "http://[::ffff:100.100.100.200]/",
        "http://[64:ff9b::a9fe:a9fe]/",  # NAT64 of 169.254.169.254
    ):
        out = await service.invoke(ToolInvoke(name="get_url", arguments={"url": url}))
        assert not out.ok, url
        assert "a cloud metadata address; refused" in out.output, out.output


def test_which_addresses_are_far_near_or_never() -> None:
    for never in (
        "169.254.169.254",
        "fd00:ec2::254",
        "100.100.100.200",
        "192.0.0.192",
        "168.63.129.16",
        "::ffff:169.254.169.254",
        "2002:a9fe:a9fe::1",
        "169.254.7.7",
        "fe80::1",
    ):
        assert address_refusal(never) is not None, never
    assert address_refusal("127.0.0.1") is None
    assert address_refusal("8.8.8.8") is None
    near = {
        "http://127.0.0.1:9/": "a loopback address (this machine)",
        "http://127.1/": "a loopback address (this machine)",
        "http://2130706433/": "a loopback address (this machine)",
        "http://[::1]/": "a loopback address (this machine)",
        "http://[::ffff:7f00:1]/": "a loopback address (this machine)",
        "http://0.0.0.0/": "an unspecified address (this machine)",
        "http://LOCALHOST./": "this machine (localhost)",
        "http://api.localhost/": "this machine (localhost)",
        "http://10.1.2.3/": "a private network address",
        "http://192.168.0.1/": "a private network address",
        "http://[fd12::1]/": "a private network address",
        "http://100.64.0.1/": "a shared network address (carrier-grade NAT)",
    }
    for url, why in near.items():
        assert url_nearness(url) == why, url
    for far in ("https://docs.python.org/3/", "http://8.8.8.8/", "http://[2606:4700::1111]/"):
        assert url_nearness(far) is None, far


async def test_plan_mode_sends_only_get_and_head(tmp_path: Path) -> None:
    with _site(b'{"items": []}') as api:
        script = [
            reply("", call("call_api", method="PUT", url=f"{api.url}/items/1", body="x")),
            reply("", call("call_api", method="HEAD", url=f"{api.url}/items")),
            reply("planned"),
        ]
        with ScriptedModel(script) as model:
            options = _options(tmp_path, model, "plan", allow=("call_api",))
            async with open_session(options) as session:
                with trio.fail_after(60):
                    result = await session.run("plan the change")
                tools = [m.content for m in session.history if m.role == "tool"]
        sent = [(s.method, s.path) for s in api.seen]
    assert result.ok, result
    assert sent == [("HEAD", "/items")]
    assert tools[0] == (
        "The call was not run: call_api with method PUT may change things on the server; "
        "only GET and HEAD are sent while planning."
    )
    assert tools[1].startswith("HTTP 200")


async def test_search_results_on_this_machine_are_not_read_unless_the_settings_say_so(
    docs: _web.Site,
) -> None:
    start = len(docs.seen)
    with _web.Site() as ddg:
        _web.duckduckgo(ddg, lambda q: doc_urls(docs, "stdtypes"))
        page = doc_urls(docs, "stdtypes")[0]
        config = {"sources": ("duckduckgo",), "urls": {"duckduckgo": ddg.url}}
        shut = SearchService(SearchConfig(**config))  # type: ignore[arg-type]
        opened = SearchService(SearchConfig(**config, private_pages=True))  # type: ignore[arg-type]
        try:
            refused = await shut.invoke(ToolInvoke(name="search_web", arguments={"query": "str"}))
            seen_before = len(docs.seen)
            read = await opened.invoke(ToolInvoke(name="search_web", arguments={"query": "str"}))
        finally:
            await shut.aclose()
            await opened.aclose()
    # the source (the user's setting) was asked; the page it pointed at was not read
    assert seen_before == start
    assert len(ddg.seen) == 2
    assert f"- {page}: " in refused.output
    assert "a loopback address (this machine), reached only when" in refused.output
    assert page in read.output
    assert SearchConfig.from_env({"HARNESS_SEARCH_PRIVATE_PAGES": "1"}).private_pages
    assert not SearchConfig.from_env({}).private_pages


async def test_hops_keep_the_redirect_rules_credentials_and_limit(tmp_path: Path) -> None:
    with _site(b'{"where": "other"}') as other, _site(b'{"where": "home"}') as site:
        port = other.url.rsplit(":", 1)[1]
        away = f"http://localhost:{port}/landing"
        site.routes.insert(0, ("/loop", lambda req: _web.Redirect("/loop")))
        site.routes.insert(0, ("/post", lambda req: _web.Redirect("/landing", status=303)))
        site.routes.insert(0, ("/away", lambda req: _web.Redirect(away, status=307)))
        secret = {"Authorization": "Bearer sk-hop-secret"}
        script = [
            reply("", call("get_url", url=f"{site.url}/loop")),
            reply("", call("call_api", method="POST", url=f"{site.url}/post", body={"a": 1})),
            reply("", call("call_api", method="PUT", url=f"{site.url}/away", headers=secret)),
            reply("done"),
        ]
        rules = (
            f"get_url({site.url}/*)",
            f"call_api({site.url}/*)",
            "call_api(http://localhost:*)",
        )
        with ScriptedModel(script) as model:
            async with open_session(_options(tmp_path, model, "ask", allow=rules)) as session:
                with trio.fail_after(60):
                    await session.run("go round")
                tools = [m.content for m in session.history if m.role == "tool"]
        home = [(s.method, s.path, s.headers.get("Authorization")) for s in site.seen]
        there = [(s.method, s.path, s.headers.get("Authorization")) for s in other.seen]
    assert f"{site.url}/loop: more than 5 redirects" in tools[0]
    assert home.count(("GET", "/loop", None)) == 6
    # a 303 turns a POST into a GET without its body; a 307 keeps the method but, to
    # another origin, not the caller's headers
    assert ("GET", "/landing", None) in home
    assert tools[1].startswith("HTTP 200")
    assert there == [("PUT", "/landing", None)]
    assert f"(from {away}, reached by 1 redirect(s))" in tools[2]


async def test_a_hop_the_rules_allow_still_meets_the_metadata_refusal(tmp_path: Path) -> None:
    with _site() as site:
        site.routes.insert(0, ("/meta", lambda req: _web.Redirect("http://100.100.100.200/")))
        tools = await _run(tmp_path, [f"{site.url}/meta"], "auto", allow=("get_url",))
    assert (
        "100.100.100.200 resolves to 100.100.100.200, a cloud metadata address; refused"
        in (tools[0])
    )
    assert f"(reached by 1 redirect(s) from {site.url}/meta)" in tools[0]
