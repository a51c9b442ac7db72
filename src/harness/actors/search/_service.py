"""The three tools the search worker answers: search_web, get_url, call_api.

Each returns a :class:`~harness.messages.tools.ToolOutcome`; a refused or failed
fetch is an ``ok=False`` outcome with a sentence for the model, never an
exception out of the worker. Secrets in the answers are masked by the
conversation, like every tool result.

A ``get_url`` or ``call_api`` call the conversation sends carries a
:data:`~harness.actors.tools.HOP_ARG` argument (its own, never the model's: the
tools' schemas refuse unknown arguments). Then a redirect is not followed here but
answered with the request that would follow it (``data["redirect"]``), so that the
conversation checks each hop against the permission rules before it is made; and
this machine and private networks are reached only when the hop says ``private``.
A call without it (the Python API, the tests of this package) follows redirects
itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs
import orjson
import trio

from harness.actors.search._config import SearchConfig
from harness.actors.search._extract import extract
from harness.actors.search._fetch import Fetcher, FetchError, Response
from harness.actors.search._guard import Resolver
from harness.actors.search._search import render, search
from harness.actors.search._text import decode, is_binary, is_html, media_type
from harness.actors.tools import HOP_ARG
from harness.messages.tools import ToolInvoke, ToolOutcome

__all__ = ["TOOLS", "SearchService"]

#: The tools this worker runs.
TOOLS = ("search_web", "get_url", "call_api")


@attrs.frozen
class _Hop:
    private: bool = False
    redirects: int = 0
    origin: str = ""

    @classmethod
    def read(cls, value: Any) -> _Hop | None:
        if not isinstance(value, Mapping):
            return None
        return cls(
            private=value.get("private") is True,
            redirects=int(value.get("redirects") or 0),
            origin=str(value.get("origin") or ""),
        )


class SearchService:
    """Runs the tools with one :class:`Fetcher` for the worker's lifetime.

    Args:
        config: the settings, or ``None`` when they did not parse (then every
            call answers *problem*).
        problem: why there are no settings.
        resolver: host, port -> addresses, for the fetcher (default: the system's).
    """

    def __init__(
        self, config: SearchConfig | None, problem: str = "", *, resolver: Resolver | None = None
    ) -> None:
        self.config = config
        self.problem = problem
        self._resolver = resolver
        self._fetcher: Fetcher | None = None

    def _client(self, config: SearchConfig) -> Fetcher:
        if self._fetcher is None:
            self._fetcher = Fetcher(
                max_redirects=config.max_redirects,
                allow_link_local=config.allow_link_local,
                user_agent=config.user_agent,
                resolver=self._resolver,
            )
        return self._fetcher

    async def aclose(self) -> None:
        """Close the kept connections."""
        if self._fetcher is not None:
            await self._fetcher.aclose()

    async def invoke(self, req: ToolInvoke) -> ToolOutcome:
        """Run one tool call."""
        if self.config is None:
            return ToolOutcome(
                ok=False, output=f"{req.name}: the search settings are wrong: {self.problem}"
            )
        args = req.arguments
        hop = _Hop.read(args.get(HOP_ARG))
        try:
            if req.name == "search_web":
                return await self.search_web(self.config, str(args.get("query", "")))
            if req.name == "get_url":
                return await self.get_url(self.config, str(args.get("url", "")), hop)
            if req.name == "call_api":
                return await self.call_api(self.config, args, hop)
        except FetchError as exc:
            where = ""
            if hop is not None and hop.redirects and hop.origin:
                where = f" (reached by {hop.redirects} redirect(s) from {hop.origin})"
            return ToolOutcome(
                ok=False, output=f"{req.name}: {exc}{where}", data={"kind": exc.kind}
            )
        return ToolOutcome(ok=False, output=f"the search worker does not run {req.name!r}")

    async def search_web(self, config: SearchConfig, query: str) -> ToolOutcome:
        """Search, rank and answer (see :mod:`harness.actors.search._search`)."""
        if not query.strip():
            return ToolOutcome(ok=False, output="search_web needs a query.")
        report = await search(query, self._client(config), config)
        found, text = render(report, config.results)
        return ToolOutcome(
            ok=True,
            output=text,
            data={
                "found": found,
                "urls": [p.url for p in report.ranking.passages[: config.results]],
                "sources": list(report.asked),
                "skipped": dict(report.skipped),
            },
        )

    async def get_url(self, config: SearchConfig, url: str, hop: _Hop | None = None) -> ToolOutcome:
        """A page as readable text, or a refusal that says why (or, for a *hop*, the
        redirect it answered with)."""
        resp = await self._client(config).fetch(
            url,
            timeout=config.page_timeout,
            max_bytes=config.max_bytes,
            want=lambda ctype: not is_binary(ctype),
            follow=hop is None,
            allow_private=hop is None or hop.private,
        )
        if resp.next is not None:
            return _redirect(config, "get_url", resp, {"url": resp.next.url}, hop)
        kind = media_type(resp.content_type) or "no content type"
        if resp.skipped or is_binary(resp.content_type, resp.body):
            return ToolOutcome(
                ok=False,
                output=f"get_url: {resp.url} is {kind}, not text; binary content is not fetched.",
                data={"status": resp.status, "content_type": kind},
            )
        text, encoding = decode(resp.body, resp.content_type)
        title = ""
        if is_html(resp.content_type, resp.body):
            got = await trio.to_thread.run_sync(extract, text)
            title, text = got.title, got.text
        head = f"{resp.url} (HTTP {resp.status}, {kind}, {encoding})"
        lines = [head]
        origin, count = _reached(url, resp, hop)
        if count:
            lines.append(f"reached from {origin} by {count} redirect(s)")
        if title:
            lines.append(f"title: {title}")
        lines += ["", *_capped(text, config.max_chars, resp)]
        return ToolOutcome(
            ok=resp.status < 400,
            output="\n".join(lines),
            data={"status": resp.status, "url": resp.url, "content_type": kind},
        )

    async def call_api(
        self, config: SearchConfig, args: Mapping[str, Any], hop: _Hop | None = None
    ) -> ToolOutcome:
        """One HTTP request: status, headers and (capped) body (or, for a *hop*, the
        redirect it answered with)."""
        method = str(args.get("method", "GET")).upper()
        url = str(args.get("url", ""))
        raw_headers = args.get("headers") or {}
        if not isinstance(raw_headers, Mapping) or not all(
            isinstance(v, str) for v in raw_headers.values()
        ):
            return ToolOutcome(ok=False, output="call_api: headers must map names to strings.")
        headers = {str(k): v for k, v in raw_headers.items()}
        names = {k.lower() for k in headers}
        body = args.get("body")
        content: bytes | None = None
        if isinstance(body, str):
            content = body.encode()
            if "content-type" not in names:
                headers["Content-Type"] = "text/plain; charset=utf-8"
        elif body is not None:
            content = orjson.dumps(body)
            if "content-type" not in names:
                headers["Content-Type"] = "application/json"
        resp = await self._client(config).fetch(
            url,
            method=method,
            headers=headers,
            content=content,
            timeout=config.page_timeout,
            max_bytes=config.max_bytes,
            follow=hop is None,
            allow_private=hop is None or hop.private,
        )
        if resp.next is not None:
            nxt = resp.next
            follow: dict[str, Any] = {"method": nxt.method, "url": nxt.url}
            if nxt.keep_headers and args.get("headers"):
                follow["headers"] = args["headers"]
            if nxt.keep_body and body is not None:
                follow["body"] = body
            return _redirect(config, "call_api", resp, follow, hop)
        lines = [f"HTTP {resp.status} {resp.reason}".rstrip()]
        _origin, count = _reached(url, resp, hop)
        if count:
            lines.append(f"(from {resp.url}, reached by {count} redirect(s))")
        lines += [f"{k}: {v}" for k, v in resp.headers]
        lines.append("")
        if method == "HEAD" or not resp.body:
            lines.append("(no body)")
        elif is_binary(resp.content_type, resp.body):
            kind = media_type(resp.content_type) or "unlabelled"
            lines.append(f"({len(resp.body)} bytes of binary content, {kind}, not shown)")
        else:
            text, _ = decode(resp.body, resp.content_type)
            lines += _capped(text, config.max_chars, resp)
        return ToolOutcome(
            ok=resp.status < 400,
            output="\n".join(lines),
            data={"status": resp.status, "url": resp.url},
        )


def _redirect(
    config: SearchConfig, tool: str, resp: Response, follow: dict[str, Any], hop: _Hop | None
) -> ToolOutcome:
    """A hop's answer when it was a redirect: the request that would follow it."""
    redirects = hop.redirects if hop is not None else 0
    if redirects >= config.max_redirects:
        origin = (hop.origin if hop is not None else "") or resp.url
        raise FetchError(
            f"{origin}: more than {config.max_redirects} redirects (stopped at {follow['url']})",
            url=origin,
            kind="redirects",
        )
    return ToolOutcome(
        ok=False,
        output=f"{tool}: {resp.url} redirects (HTTP {resp.status}) to {follow['url']}",
        data={"redirect": follow, "status": resp.status, "from": resp.url},
    )


def _reached(url: str, resp: Response, hop: _Hop | None) -> tuple[str, int]:
    """Where a fetch began and by how many redirects it got here."""
    if hop is not None and hop.redirects:
        return hop.origin or url, hop.redirects
    return url, len(resp.redirects)


def _capped(text: str, limit: int, resp: Response) -> list[str]:
    out = [text[:limit]]
    if len(text) > limit:
        out.append(f"\n[cut: {limit:,} of {len(text):,} characters shown]")
    if resp.truncated:
        out.append(f"[the response was larger than {len(resp.body):,} bytes; only those were read]")
    return out
