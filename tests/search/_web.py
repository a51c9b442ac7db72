"""Loopback HTTP servers standing in for the web: search sources and the pages they find.

Each :class:`Site` is a real HTTP/1.1 server on 127.0.0.1 (a thread per
connection), answering by path prefix. Routes return a :class:`Page`, or one of
the misbehaviours a fetcher must survive: a hang, a body that never ends, a
redirect. Every request is recorded. The source sites speak each source's own
wire format (DuckDuckGo's result HTML, Wikipedia's, Stack Exchange's and GitHub's
search JSON, SearXNG's JSON), built from the pages of another site.
"""

from __future__ import annotations

import html
import json
import threading
import time
import urllib.parse
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import attrs

DOCS = Path("/usr/share/doc/python3.11/html")


@attrs.frozen
class Page:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = attrs.field(factory=dict)
    content_type: str = "text/html; charset=utf-8"


@attrs.frozen
class Hang:
    """Accept the request and never answer (until the server closes)."""


@attrs.frozen
class Endless:
    """An HTML page that streams *total* bytes, chunk by chunk, without a length."""

    total: int
    chunk: bytes = b"<p>" + b"filler text for a very large page " * 30 + b"</p>\n"


@attrs.frozen
class Redirect:
    location: str
    status: int = 302


@attrs.frozen
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


Route = Callable[["Request"], "Page | Hang | Endless | Redirect"]


@attrs.frozen
class Request:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes


class Site:
    """A loopback server. ``site.route(prefix, fn)``; ``site.url``; ``site.seen``."""

    def __init__(self, latency: float = 0.0) -> None:
        self.latency = latency
        self.routes: list[tuple[str, Route]] = []
        self.seen: list[Seen] = []
        self.arrived = threading.Event()
        self._stop = threading.Event()
        site = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _serve(self) -> None:
                site._handle(self)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _serve

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        # shutdown() waits for serve_forever's next poll: 0.5 s by default, per site
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def route(self, prefix: str, fn: Route) -> None:
        self.routes.append((prefix, fn))

    def __enter__(self) -> Site:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._server.shutdown()
        self._server.server_close()

    def _handle(self, h: BaseHTTPRequestHandler) -> None:
        parts = urllib.parse.urlsplit(h.path)
        length = int(h.headers.get("Content-Length") or 0)
        body = h.rfile.read(length) if length else b""
        headers = {k: v for k, v in h.headers.items()}
        self.seen.append(Seen(h.command, h.path, headers, body))
        self.arrived.set()
        req = Request(
            method=h.command,
            path=parts.path,
            query={k: v[0] for k, v in urllib.parse.parse_qs(parts.query).items()},
            headers=headers,
            body=body,
        )
        route = next((fn for prefix, fn in self.routes if parts.path.startswith(prefix)), None)
        if self.latency:
            time.sleep(self.latency)
        answer = route(req) if route else Page(status=404, body=b"not found")
        try:
            self._answer(h, answer)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client hung up: what a capped fetch does

    def _answer(self, h: BaseHTTPRequestHandler, answer: Page | Hang | Endless | Redirect) -> None:
        if isinstance(answer, Hang):
            self._stop.wait()
            h.close_connection = True
            return
        if isinstance(answer, Redirect):
            h.send_response(answer.status)
            h.send_header("Location", answer.location)
            h.send_header("Content-Length", "0")
            h.end_headers()
            return
        if isinstance(answer, Endless):
            h.send_response(200)
            h.send_header("Content-Type", "text/html; charset=utf-8")
            h.send_header("Connection", "close")
            h.end_headers()
            h.wfile.write(b"<html><body><main>")
            sent = 0
            while sent < answer.total and not self._stop.is_set():
                h.wfile.write(answer.chunk)
                sent += len(answer.chunk)
            h.close_connection = True
            return
        h.send_response(answer.status)
        h.send_header("Content-Type", answer.content_type)
        for k, v in answer.headers.items():
            h.send_header(k, v)
        h.send_header("Content-Length", str(len(answer.body)))
        h.end_headers()
        if h.command != "HEAD":
            h.wfile.write(answer.body)


# --- the pages ---------------------------------------------------------------------------


def docs_site(site: Site) -> None:
    """Serve Python's documentation (Debian's python3.11-doc) under ``/docs/``."""
    if not (DOCS / "library" / "stdtypes.html").is_file():
        raise RuntimeError(
            "Python's HTML documentation is missing: `apt-get install python3.11-doc` "
            "(make test installs it)"
        )

    def serve(req: Request) -> Page:
        path = (DOCS / req.path.removeprefix("/docs/")).resolve()
        if DOCS not in path.parents or not path.is_file():
            return Page(status=404, body=b"no such page")
        return Page(body=path.read_bytes())

    site.route("/docs/", serve)


def doc_title(page_path: str) -> str:
    return page_path.rsplit("/", 1)[-1].removesuffix(".html")


# --- the sources, each in its own wire format ------------------------------------------


def duckduckgo(site: Site, results: Callable[[str], list[str]]) -> None:
    """``/html/?q=``: DuckDuckGo's result page, links wrapped in its redirector."""

    def serve(req: Request) -> Page:
        items = []
        for url in results(req.query.get("q", "")):
            wrapped = "//duckduckgo.com/l/?uddg=" + urllib.parse.quote(url, safe="") + "&rut=x"
            items.append(
                '<div class="result results_links web-result"><div class="links_main">'
                f'<h2 class="result__title"><a rel="nofollow" class="result__a" '
                f'href="{html.escape(wrapped)}">{html.escape(doc_title(url))}</a></h2>'
                f'<a class="result__snippet" href="{html.escape(wrapped)}">snippet</a>'
                "</div></div>"
            )
        ad = (
            '<div class="result result--ad"><a class="result__a" '
            'href="https://ads.example/">Sponsored</a></div>'
        )
        body = f"<html><body><div class='results'>{ad}{''.join(items)}</div></body></html>"
        return Page(body=body.encode())

    site.route("/html/", serve)


def wikipedia(site: Site, titles: Callable[[str], list[str]]) -> None:
    """``/w/api.php?action=query&list=search``; articles under ``/wiki/``."""

    def api(req: Request) -> Page:
        hits = [{"ns": 0, "title": t, "snippet": "…"} for t in titles(req.query["srsearch"])]
        data = {
            "batchcomplete": "",
            "query": {"searchinfo": {"totalhits": len(hits)}, "search": hits},
        }
        return Page(body=json.dumps(data).encode(), content_type="application/json")

    def article(req: Request) -> Page:
        title = urllib.parse.unquote(req.path.removeprefix("/wiki/")).replace("_", " ")
        body = (
            f"<html><head><title>{title} - Wikipedia</title></head><body>"
            "<nav>Main page Contents Current events</nav>"
            f"<main><h1>{title}</h1><p>{title} is an entity that every page mentions. "
            f"{title} is widely used.</p></main></body></html>"
        )
        return Page(body=body.encode())

    site.route("/w/api.php", api)
    site.route("/wiki/", article)


def stackexchange(site: Site, items: Callable[[str], list[dict[str, Any]]]) -> None:
    """``/2.3/search/advanced``: Stack Exchange's wrapper object, bodies as HTML."""

    def serve(req: Request) -> Page:
        data = {"items": items(req.query.get("q", "")), "has_more": False, "quota_max": 300}
        return Page(body=json.dumps(data).encode(), content_type="application/json")

    site.route("/2.3/search/advanced", serve)


def github(site: Site, items: Callable[[str], list[dict[str, Any]]]) -> None:
    """``/search/issues``: GitHub's search JSON, bodies as Markdown."""

    def serve(req: Request) -> Page:
        found = items(req.query.get("q", ""))
        data = {"total_count": len(found), "incomplete_results": False, "items": found}
        return Page(body=json.dumps(data).encode(), content_type="application/json")

    site.route("/search/issues", serve)


def searxng(site: Site, results: Callable[[str], list[str]]) -> None:
    """``/search?format=json``: SearXNG's JSON results."""

    def serve(req: Request) -> Page:
        if req.query.get("format") != "json":
            return Page(status=403, body=b"format not allowed")
        found = [{"url": u, "title": doc_title(u), "content": "…"} for u in results(req.query["q"])]
        return Page(body=json.dumps({"results": found}).encode(), content_type="application/json")

    site.route("/search", serve)
