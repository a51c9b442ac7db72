"""get_url, call_api and the fetcher under them, against real loopback servers."""

from __future__ import annotations

import gzip
import json
import struct
import time
import tracemalloc
import zlib
from collections.abc import Callable

import pytest

from harness.actors.search import Fetcher, FetchError, SearchConfig, SearchService, refusal
from harness.messages.tools import ToolInvoke, ToolOutcome
from tests.search import _web

CYRILLIC = "Съешь же ещё этих мягких французских булок, да выпей чаю"
JAPANESE = "吾輩は猫である。名前はまだ無い。"
_KOI8 = '<meta http-equiv="Content-Type" content="text/html; charset=koi8-r">'


async def _get(service: SearchService, url: str) -> ToolOutcome:
    return await service.invoke(ToolInvoke(name="get_url", arguments={"url": url}))


async def _call(service: SearchService, **args: object) -> ToolOutcome:
    return await service.invoke(ToolInvoke(name="call_api", arguments=dict(args)))


async def test_a_50_mb_page_is_capped(make_service: Callable[..., SearchService]) -> None:
    with _web.Site() as site:
        site.route("/huge", lambda req: _web.Endless(total=50_000_000))
        service = make_service(max_bytes=1_000_000, max_chars=5000)
        started = time.monotonic()
        out = await _get(service, f"{site.url}/huge")
        took = time.monotonic() - started
    assert out.ok
    assert "filler text for a very large page" in out.output
    assert "[the response was larger than 1,000,000 bytes; only those were read]" in out.output
    assert "[cut: 5,000 of " in out.output
    assert len(out.output) < 6000
    assert took < 10, took


async def test_broken_html_gives_its_text(make_service: Callable[..., SearchService]) -> None:
    broken = (
        b"<html><head><title>Broken</title><body><div><p>first <b>bold <i>both</b> italic"
        b"<p>second</div></div></span><table><tr><td>cell one<td>cell two"
        b"<script>var x = '</p>never shown"
    )
    with _web.Site() as site:
        site.route("/broken", lambda req: _web.Page(body=broken))
        out = await _get(make_service(), f"{site.url}/broken")
    assert out.ok
    assert "title: Broken" in out.output
    assert "first bold both italic" in out.output
    assert "second" in out.output
    assert "cell one cell two" in out.output
    assert "never shown" not in out.output


@pytest.mark.parametrize(
    ("body", "ctype"),
    [
        (  # declared only in the page
            f'<html><head><meta charset="windows-1251"></head><body><p>{CYRILLIC}</p>'.encode(
                "cp1251"
            ),
            "text/html",
        ),
        (  # declared only in the header
            f"<html><body><p>{JAPANESE}</p></body></html>".encode("shift_jis"),
            "text/html; charset=Shift_JIS",
        ),
        (  # a legacy meta http-equiv, and a text document
            (_KOI8 + f"<p>{CYRILLIC}").encode("koi8-r"),
            "",
        ),
    ],
)
async def test_a_page_in_another_encoding_is_read_right(
    make_service: Callable[..., SearchService], body: bytes, ctype: str
) -> None:
    with _web.Site() as site:
        site.route("/page", lambda req: _web.Page(body=body, content_type=ctype))
        out = await _get(make_service(), f"{site.url}/page")
    assert out.ok, out.output
    text = JAPANESE if b"\x8c" in body[:40] or "Shift" in ctype else CYRILLIC
    assert text in out.output


async def test_binary_content_is_refused_unread(make_service: Callable[..., SearchService]) -> None:
    png = b"\x89PNG\r\n\x1a\n" + b"\x00" * 5000
    with _web.Site() as site:
        site.route("/img", lambda req: _web.Page(body=png, content_type="image/png"))
        site.route("/blob", lambda req: _web.Page(body=png, content_type=""))
        service = make_service()
        labelled = await _get(service, f"{site.url}/img")
        sniffed = await _get(service, f"{site.url}/blob")
    assert not labelled.ok
    assert "is image/png, not text; binary content is not fetched" in labelled.output
    assert not sniffed.ok
    assert "not text" in sniffed.output


async def test_a_redirect_to_a_metadata_address_is_refused(
    make_service: Callable[..., SearchService],
) -> None:
    with _web.Site() as site:
        site.route("/go", lambda req: _web.Redirect("http://169.254.169.254/latest/meta-data/iam/"))
        site.route("/v6", lambda req: _web.Redirect("http://[fd00:ec2::254]/latest/"))
        service = make_service()
        v4 = await _get(service, f"{site.url}/go")
        v6 = await _call(service, method="GET", url=f"{site.url}/v6")
        direct = await _call(service, method="GET", url="http://169.254.170.2/v2/credentials")
        link = await _get(service, "http://169.254.1.1/")
    assert not v4.ok
    assert "169.254.169.254" in v4.output
    assert "a cloud metadata address; refused" in v4.output
    assert f"reached by redirect from {site.url}/go" in v4.output
    assert v4.data["kind"] == "refused"
    assert not v6.ok
    assert "fd00:ec2::254" in v6.output
    assert "refused" in v6.output
    assert not direct.ok
    assert "169.254.170.2, a cloud metadata address; refused" in direct.output
    assert not link.ok
    assert "a link-local address" in link.output


async def test_a_name_that_resolves_to_metadata_is_refused_at_every_hop() -> None:
    # A resolver stands in for DNS: the name answers with a metadata address.
    async def resolver(host: str, port: int) -> list[str]:
        return ["169.254.169.254"] if host == "metadata.test" else ["127.0.0.1"]

    with _web.Site() as site:
        port = site.url.rsplit(":", 1)[1]
        site.route("/hop", lambda req: _web.Redirect(f"http://metadata.test:{port}/x"))
        site.route("/ok", lambda req: _web.Page(body=b"<p>fine</p>"))
        fetcher = Fetcher(resolver=resolver)
        try:
            fine = await fetcher.fetch(f"http://localhost.test:{port}/ok")
            with pytest.raises(FetchError, match=r"metadata\.test resolves to 169\.254\.169\.254"):
                await fetcher.fetch(f"http://localhost.test:{port}/hop")
        finally:
            await fetcher.aclose()
        assert fine.body == b"<p>fine</p>"
        assert [s.path for s in site.seen] == ["/ok", "/hop"]  # nothing reached /x


def test_the_setting_lifts_the_refusal() -> None:
    # Never dialled here: this machine may have a live metadata service.
    assert SearchConfig.from_env({"HARNESS_FETCH_ALLOW_LINK_LOCAL": "1"}).allow_link_local
    assert not SearchConfig.from_env({}).allow_link_local


def test_which_addresses_are_refused() -> None:
    assert refusal("169.254.169.254") == "a cloud metadata address"
    assert refusal("fd00:ec2::254") == "a cloud metadata address"
    assert refusal("::ffff:169.254.169.254") == "a cloud metadata address"
    assert refusal("169.254.0.1") is not None
    assert refusal("fe80::1") is not None
    assert refusal("127.0.0.1") is None
    assert refusal("10.0.0.1") is None
    assert refusal("2606:4700::1111") is None


async def test_redirects_to_other_schemes_and_too_many_redirects(
    make_service: Callable[..., SearchService],
) -> None:
    with _web.Site() as site:
        site.route("/file", lambda req: _web.Redirect("file:///etc/passwd"))
        site.route("/loop", lambda req: _web.Redirect("/loop"))
        site.route("/gopher", lambda req: _web.Redirect("gopher://example.com/"))
        service = make_service(max_redirects=3)
        to_file = await _get(service, f"{site.url}/file")
        looping = await _get(service, f"{site.url}/loop")
        gopher = await _call(service, method="GET", url=f"{site.url}/gopher")
        first = await _get(service, "file:///etc/passwd")
    assert not to_file.ok
    assert "redirected to file:" in to_file.output
    assert "only http and https redirects are followed" in to_file.output
    assert "root:" not in to_file.output
    assert not looping.ok
    assert "more than 3 redirects" in looping.output
    assert len([s for s in site.seen if s.path == "/loop"]) == 4
    assert not gopher.ok
    assert "gopher://" in gopher.output
    assert not first.ok
    assert "only http:// and https:// URLs are fetched" in first.output


async def test_a_server_that_never_answers_times_out(
    make_service: Callable[..., SearchService],
) -> None:
    with _web.Site() as site:
        site.route("/hang", lambda req: _web.Hang())
        service = make_service(page_timeout=1.0)
        started = time.monotonic()
        out = await _get(service, f"{site.url}/hang")
        took = time.monotonic() - started
    assert not out.ok
    assert "no complete answer within 1 s" in out.output
    assert took < 5, took


async def test_call_api_sends_json_and_returns_status_headers_and_body(
    make_service: Callable[..., SearchService],
) -> None:
    def echo(req: _web.Request) -> _web.Page:
        got = {
            "method": req.method,
            "auth": req.headers.get("Authorization"),
            "type": req.headers.get("Content-Type"),
            "body": json.loads(req.body) if req.body.startswith(b"{") else req.body.decode(),
        }
        return _web.Page(
            status=201,
            body=json.dumps(got).encode(),
            content_type="application/json",
            headers={"X-Request-Id": "r-1"},
        )

    with _web.Site() as site:
        site.route("/api", echo)
        out = await _call(
            make_service(),
            method="POST",
            url=f"{site.url}/api/items",
            headers={"Authorization": "Bearer sk-test-123456"},
            body={"name": "x", "n": [1, 2]},
        )
        text = await _call(make_service(), method="PUT", url=f"{site.url}/api", body="plain")
        head = await _call(make_service(), method="HEAD", url=f"{site.url}/api")
    assert out.ok
    lines = out.output.splitlines()
    assert lines[0] == "HTTP 201 Created"
    assert "x-request-id: r-1" in lines
    sent = json.loads(out.output.split("\n\n", 1)[1])
    assert sent == {
        "method": "POST",
        "auth": "Bearer sk-test-123456",
        "type": "application/json",
        "body": {"name": "x", "n": [1, 2]},
    }
    assert '"type": "text/plain; charset=utf-8"' in text.output
    assert head.output.endswith("(no body)")


async def test_credentials_stay_with_their_host_across_a_redirect(
    make_service: Callable[..., SearchService],
) -> None:
    with _web.Site() as a, _web.Site() as b:
        a.route("/", lambda req: _web.Redirect(f"{b.url}/landing"))
        b.route("/", lambda req: _web.Page(body=b"landed", content_type="text/plain"))
        out = await _call(
            make_service(), method="GET", url=f"{a.url}/start", headers={"X-Api-Key": "k-999999"}
        )
    assert out.ok
    assert a.seen[0].headers.get("X-Api-Key") == "k-999999"
    assert "X-Api-Key" not in b.seen[0].headers


def _gzip(data: bytes) -> bytes:
    return gzip.compress(data, compresslevel=9)


def _zeros_gzip(size: int, block: int = 1 << 20) -> bytes:
    """gzip of *size* zero bytes, made without deflating them all (300 MB take seconds):
    a block deflated from an empty window (a fresh compressor, or after a full flush)
    comes out as the same bytes every time, so one is deflated and repeated."""
    piece = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    block_bytes = piece.compress(bytes(block)) + piece.flush(zlib.Z_FULL_FLUSH)
    whole, rest = divmod(size, block)
    last = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    end = last.compress(bytes(rest)) + last.flush()
    crc, zeros = 0, bytes(block)
    for _ in range(whole):
        crc = zlib.crc32(zeros, crc)
    crc = zlib.crc32(bytes(rest), crc)
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"  # deflate, no name, no time
    return header + block_bytes * whole + end + struct.pack("<II", crc, size & 0xFFFFFFFF)


@pytest.mark.parametrize("size", [0, 5, 1 << 20, 3 * (1 << 20) + 17])
def test_the_zeros_bomb_is_the_gzip_of_its_zeros(size: int) -> None:
    assert gzip.decompress(_zeros_gzip(size)) == bytes(size)


async def test_a_body_encoded_twice_is_refused_unread(
    make_service: Callable[..., SearchService],
) -> None:
    # a few hundred bytes that would inflate to gigabytes through two layers of gzip
    bomb = _gzip(_zeros_gzip(200_000_000))
    assert len(bomb) < 10_000
    with _web.Site() as site:
        site.route(
            "/two",
            lambda req: _web.Page(body=bomb, headers={"Content-Encoding": "gzip, gzip"}),
        )
        site.route(
            "/odd", lambda req: _web.Page(body=b"x", headers={"Content-Encoding": "compress"})
        )
        service = make_service()
        page = await _get(service, f"{site.url}/two")
        api = await _call(service, method="GET", url=f"{site.url}/two")
        odd = await _get(service, f"{site.url}/odd")
    assert not page.ok
    assert "encoded 2 times over (gzip, gzip)" in page.output
    assert "refused unread" in page.output
    assert page.data["kind"] == "encoding"
    assert not api.ok
    assert "encoded 2 times over" in api.output
    assert not odd.ok
    assert "encoded as 'compress', which is not read" in odd.output
    # what is asked for is what is read
    assert site.seen[0].headers["Accept-Encoding"] == "gzip, deflate"


async def test_the_cap_counts_decoded_bytes_while_decoding() -> None:
    # one raw chunk of this inflates to tens of MB; the cap must stop decoding at 1 MB
    bomb = _zeros_gzip(300_000_000)
    text = b"<p>" + b"readable words " * 2000 + b"</p>"
    deflated = zlib.compress(text)
    raw_deflate = zlib.compressobj(wbits=-zlib.MAX_WBITS)
    raw = raw_deflate.compress(text) + raw_deflate.flush()
    with _web.Site() as site:
        site.route(
            "/bomb",
            lambda req: _web.Page(body=bomb, headers={"Content-Encoding": "gzip"}),
        )
        site.route(
            "/z", lambda req: _web.Page(body=deflated, headers={"Content-Encoding": "deflate"})
        )
        site.route("/raw", lambda req: _web.Page(body=raw, headers={"Content-Encoding": "deflate"}))
        site.route(
            "/bad",
            lambda req: _web.Page(body=b"not gzip at all", headers={"Content-Encoding": "gzip"}),
        )
        fetcher = Fetcher()
        try:
            tracemalloc.start()
            try:
                got = await fetcher.fetch(f"{site.url}/bomb", max_bytes=1_000_000)
                _, peak = tracemalloc.get_traced_memory()
            finally:
                tracemalloc.stop()
            # the compressed body, the cap and change; not the tens of MB one chunk inflates to
            assert peak < 12_000_000, peak
            z = await fetcher.fetch(f"{site.url}/z")
            r = await fetcher.fetch(f"{site.url}/raw")
            with pytest.raises(FetchError, match="the gzip body does not decode"):
                await fetcher.fetch(f"{site.url}/bad")
        finally:
            await fetcher.aclose()
    assert got.truncated
    assert got.body == b"\0" * 1_000_000
    assert z.body == text
    assert not z.truncated
    assert r.body == text
