"""fce.parse: decoding order, refusal of non-HTML, parse of awkward but valid pages."""

import codecs
import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fce
from fce import parse
from fce.errors import EmptyPageError, NotHTMLError, PageTooLargeError
from fce.parse import LONG_TAG_CHARS, WEB_CODECS, decode_html, parse_page

CAFE_1252 = "<html><head><meta charset='windows-1252'></head><body><p>café “quoted”</p></body></html>"


def body_text(page):
    return " ".join("".join(page.body.itertext()).split())


@pytest.mark.parametrize(
    ("data", "declared", "expected"),
    [
        (CAFE_1252.encode("cp1252"), None, "cp1252"),  # <meta charset>
        (CAFE_1252.encode("cp1252"), "utf-8", "utf-8"),  # the caller's charset wins over the meta tag
        (codecs.BOM_UTF8 + "<p>é</p>".encode(), "iso-8859-1", "utf-8"),  # a BOM wins over everything
        ("<p>é</p>".encode(), None, "utf-8"),  # valid UTF-8 without declaration
        (b'<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1"><p>\xe9</p>', None, "cp1252"),
    ],
)
def test_encoding_order(data, declared, expected):
    _, encoding = decode_html(data, declared)
    assert encoding == expected


def test_meta_charset_decodes_text():
    page = parse_page(CAFE_1252.encode("cp1252"))
    assert body_text(page) == "café “quoted”"


def test_utf8_bytes_under_a_legacy_label_are_read_as_utf8():
    chinese = "谷歌在2014年收购的人工智能公司开发出一款能够用自己的记忆学习新知识的计算机。"
    page = parse_page(f'<html><head><meta charset="gb2312"></head><body><p>{chinese}</p></body></html>'.encode())
    assert body_text(page) == chinese
    served = parse_page(f"<p>{chinese}</p>".encode(), declared_charset="iso-8859-1")  # a server's default label
    assert body_text(served) == chinese


def test_a_legacy_label_stays_where_the_bytes_are_not_utf8_or_all_ascii():
    chinese = "谷歌在2014年收购的人工智能公司开发出一款计算机。"
    gbk = f'<html><head><meta charset="gb2312"></head><body><p>{chinese}</p></body></html>'.encode("gb18030")
    assert body_text(parse_page(gbk)) == chinese
    japanese = "人工知能の会社"
    jis = f"<p>{japanese}</p>".encode("iso-2022-jp")  # 7-bit bytes: valid UTF-8 that only the label decodes
    assert body_text(parse_page(jis, declared_charset="iso-2022-jp")) == japanese


def test_one_utf8_character_under_a_legacy_label_reads_as_utf8():
    assert body_text(parse_page("<p>caf\u00e9</p>".encode(), declared_charset="windows-1252")) == "caf\u00e9"
    assert body_text(parse_page("<p>caf\u00e9 cr\u00e8me</p>".encode("cp1252"), declared_charset="windows-1252")) == (
        "caf\u00e9 cr\u00e8me")


def test_undecodable_bytes_never_raise():
    page = parse_page(b"<p>ok \xff\xfe\xfa bytes</p>", declared_charset="utf-8")
    assert "ok" in body_text(page)


def test_detector_used_without_declaration():
    text = "<html><body><p>" + "Привет, как дела? Это тест кодировки. " * 20 + "</p></body></html>"
    page = parse_page(text.encode("cp1251"))
    assert "Привет" in body_text(page)


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-le", "utf-16-be"])
def test_utf16_with_and_without_bom(codec):
    page = parse_page("<html><body><p>wide é text</p></body></html>".encode(codec))
    assert body_text(page) == "wide é text"


@pytest.mark.parametrize(
    ("data", "error"),
    [
        (b"", EmptyPageError),
        (b"   \n\t ", EmptyPageError),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", NotHTMLError),
        (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3", NotHTMLError),
        (b"\x1f\x8b\x08\x00\x00\x00\x00\x00", NotHTMLError),
        (b'{"url": "x", "items": [1, 2, 3]}', NotHTMLError),
        (b"just some plain text without any markup at all", NotHTMLError),
        (bytes(range(256)) * 8, NotHTMLError),
    ],
)
def test_refused_inputs_name_the_source(data, error):
    with pytest.raises(error) as info:
        parse_page(data, source="input.bin")
    assert str(info.value).startswith("input.bin: ")
    assert "\n" not in str(info.value)


def test_size_cap():
    with pytest.raises(PageTooLargeError):
        parse_page(b"<p>" + b"x" * 2000 + b"</p>", max_bytes=1000)


def test_xml_declaration_and_namespaces():
    xhtml = (
        b'<?xml version="1.0" encoding="utf-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml">'
        b"<body><p>namespaced</p></body></html>"
    )
    assert body_text(parse_page(xhtml)) == "namespaced"


def test_nul_bytes_in_html():
    page = parse_page(b"<html><body><p>a\x00b</p></body></html>")
    assert "a" in body_text(page)


def test_deep_nesting_does_not_crash():
    page = parse_page(b"<div>" * 100_000 + b"deep" + b"</div>" * 10)
    assert page.root is not None


def test_deep_nesting_with_a_tail_of_unclosed_tags_is_fast():
    # (read as text, UTF-16, so the deep nesting is flattened in Python: each "<b" of the tail was tried to the end
    # of the page, 5,000 of them 100 s)
    data = ("<html><body>" + "<span>x" * 3000 + "<b" * 5000).encode("utf-16")
    started = time.perf_counter()
    page = parse_page(data)
    assert time.perf_counter() - started < 10
    assert "x" in body_text(page)


# -- the fast paths give the same tree as the plain ones -------------------------------------------------------------

SAME_TREE_INPUTS = [
    b"<html><body><p>plain ascii</p></body></html>",
    "<html><body><p>caf\u00e9 \u2014 \u65e5\u672c</p></body></html>".encode(),
    codecs.BOM_UTF8 + "<html><body><p>bom caf\u00e9</p></body></html>".encode(),
    b"<html><head><meta charset=utf-8></head><body><p>mixed caf\xe9 \xe2\x80\x94</p></body></html>",
    CAFE_1252.encode("windows-1252"),
    b'<?xml version="1.0" encoding="utf-8"?><html><body><p>decl</p></body></html>',
    b"<html><body><p>a\x00b</p></body></html>",
    b"<html><body><p " + b" ".join(b"a%d=1" % i for i in range(5000)) + b">many attributes</p></body></html>",
]


@pytest.mark.parametrize("data", SAME_TREE_INPUTS, ids=range(len(SAME_TREE_INPUTS)))
def test_bytes_handed_to_libxml2_give_the_tree_of_the_decoded_text(data):
    from lxml import etree

    from fce.parse import _parse_text

    text, encoding = decode_html(data)
    expected = _parse_text(text, encoding=encoding, url=None, source=None, size=len(data), meta={})
    page = parse_page(data)
    assert page.encoding == encoding
    assert etree.tostring(page.root, encoding="unicode") == etree.tostring(expected.root, encoding="unicode")


def _slow_parse(data, declared=None):
    """parse_page without the byte-level path: through the decoded text, as it parsed every page before."""
    from unittest import mock

    from fce import parse

    with mock.patch.object(parse, "_parse_from_bytes", lambda *args, **kwargs: None):
        return parse_page(data, declared_charset=declared)


def _outcome(parse):
    """The tree and encoding a parse gives, or the error class and message it raises."""
    from lxml import etree

    from fce.errors import InputError

    try:
        page = parse()
    except InputError as exc:
        return type(exc), str(exc)
    return etree.tostring(page.root, encoding="unicode"), page.encoding


BYTE_PATH_INPUTS = [
    *SAME_TREE_INPUTS,
    b"<p>plain ascii, no html element</p>",
    b"  \n\t<!doctype html><html><body><p>x</p></body></html>",
    b"<html><head><meta charset=iso-8859-1></head><body><p>ascii only</p></body></html>",
    "<html><head><meta charset=iso-8859-1></head><body><p>caf\u00e9</p></body></html>".encode("cp1252"),
    b"<html><head><meta charset=koi8-r></head><body><p>ascii</p></body></html>",
    b"<html><head><meta charset=shift_jis></head><body><p>ascii</p></body></html>",
    "<html><head><meta charset=utf-16></head><body><p>caf\u00e9</p></body></html>".encode(),
    b'<html xmlns:svg="http://www.w3.org/2000/svg"><body><svg:svg><svg:text>x</svg:text></svg:svg><p>y</p></body></html>',
    b'<html xmlns:fb="http://ogp.me/ns/fb#"><body><p>facebook prefix</p></body></html>',
    '<html xmlns:\u00e9 = "http://www.w3.org/2000/svg"><body><\u00e9:svg>x</\u00e9:svg><p>y</p></body></html>'.encode(),
    b'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><text>s</text></svg><p>z</p>',
    b"<html><body><p>" + b"x" * 40_000 + b"</p></body></html>",  # a long run without a tag: the check scans
    b"<html><body><p data-x='" + b"y" * 40_000 + b"'>a long tag</p></body></html>",
    b"<html><body><p>control \x01\x02 characters</p></body></html>",
    b"\x01" * 300 + b"<p>mostly control characters</p>",
    b'{"json": "<p>not html</p>"}',
    b"plain text with a < b in it",
    b"<html><body><p>truncated \xe2\x80</p></body></html>",
    b"<html><body><p>surrogate \xed\xa0\x80</p></body></html>",
    b"<html><body><p>over max \xf4\x90\x80\x80</p></body></html>",
    "<html><body><p>\u00a0<b>nbsp and wide \U0001f600</b></p></body></html>".encode(),
    "\u3000<p>ideographic space first</p>".encode(),
    b"<frameset><frame src=a></frameset><noframes><p>no frames</p></noframes>",
    b"<html><head><mbox><p>body in head</p></html>",
    b"<" + b"div>" * 3000 + b"deep",  # too deep: flattened from the decoded text
]


@pytest.mark.parametrize("data", BYTE_PATH_INPUTS, ids=range(len(BYTE_PATH_INPUTS)))
def test_the_byte_level_path_gives_what_the_text_path_gives(data):
    assert _outcome(lambda: parse_page(data)) == _outcome(lambda: _slow_parse(data))


def test_the_byte_level_path_is_taken_for_ordinary_pages():
    from fce.parse import _parse_from_bytes

    for data in (BYTE_PATH_INPUTS[1], BYTE_PATH_INPUTS[len(SAME_TREE_INPUTS) + 2], BYTE_PATH_INPUTS[-5]):
        assert _parse_from_bytes(data, None, url=None, source=None, meta=None) is not None
    for data in (SAME_TREE_INPUTS[2], SAME_TREE_INPUTS[3], SAME_TREE_INPUTS[4], SAME_TREE_INPUTS[6]):
        assert _parse_from_bytes(data, None, url=None, source=None, meta=None) is None


@given(st.lists(st.sampled_from(["<p>", "</p>", "<div class='a'>", "</div>", "<br>", " ", "\n", "caf\u00e9", "x",
                                 "\u2014", "\U0001f600", "&amp;", "<!-- c -->", "<b>", "</b>", "\x01", "{"]),
                max_size=30),
       st.sampled_from([None, "utf-8", "windows-1252", "iso-8859-2"]), st.booleans(),
       st.binary(max_size=4))
@settings(max_examples=300, deadline=None)
def test_the_byte_level_path_agrees_on_random_pages(pieces, declared, wrap, junk):
    body = "".join(pieces)
    text = f"<html><body>{body}</body></html>" if wrap else body
    data = text.encode("utf-8") + junk
    assert _outcome(lambda: parse_page(data, declared_charset=declared)) == _outcome(
        lambda: _slow_parse(data, declared))


# -- the byte scans (fce/_scan.pyx and their Python versions in fce.parse) answer what the checks they replace did --

UTF8_BOUNDARIES = [
    b"", b"a", b"\x7f", b"\x80", b"\xbf", b"\xc0\x80", b"\xc1\xbf", b"\xc2\x80", b"\xdf\xbf", b"\xdf",
    b"\xe0\x9f\xbf", b"\xe0\xa0\x80", b"\xec\xbf\xbf", b"\xed\x9f\xbf", b"\xed\xa0\x80", b"\xee\x80\x80",
    b"\xef\xbf\xbf", b"\xef\xbf", b"\xf0\x8f\xbf\xbf", b"\xf0\x90\x80\x80", b"\xf3\xbf\xbf\xbf",
    b"\xf4\x8f\xbf\xbf", b"\xf4\x90\x80\x80", b"\xf5\x80\x80\x80", b"\xff", b"\xf0\x90\x80",
    b"12345678\xc3\xa9", b"1234567\xc3\xa9", b"1234567\xc3", b"\xc3\xa912345678",
]
#: Lengths of ASCII put before a test byte: around the compiled scans' chunks (128 bytes) and a few of them.
PADDINGS = [0, 1, 5, 63, 64, 122, 123, 127, 128, 129, 250, 255, 256, 300]


def _scans(impl):
    """The byte scans, compiled or in Python: ``scan``, ``binds_prefix``, ``meta_charset``."""
    from fce import parse

    if impl == "compiled":
        compiled = pytest.importorskip("fce._scan")
        return compiled.scan, compiled.binds_prefix, compiled.meta_charset
    return parse._scan_decoding, parse._binds_prefix_matching, parse._meta_charset_searching


def _scan_reference(data, control_stop):
    """What ``_parse_from_bytes`` asked of the bytes before the one-pass scan, written out byte by byte:
    ``bytes.decode``, ``bytes.isascii`` and the control characters of the text path's pattern (``_CONTROL``)."""
    from fce.parse import _CONTROL

    if _CONTROL.search(data[:control_stop].decode("latin-1")) or 0 in data:
        return None
    if data.isascii():
        return "ascii"
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return "utf-8"


@pytest.mark.parametrize("impl", ["compiled", "python"])
def test_the_byte_scan_answers_what_the_separate_checks_did(impl):
    scan = _scans(impl)[0]
    cases = [(pad, byte) for pad in PADDINGS for byte in range(256)]
    for pad, byte in cases:  # every byte, at and around chunk boundaries, before, at and after the stop
        data = b"a" * pad + bytes([byte]) + b"b" * (pad % 7)
        for stop in (0, pad, pad + 1, pad + 2, 16_384):
            assert scan(data, stop) == _scan_reference(data, stop), (pad, byte, stop)
    for seq in UTF8_BOUNDARIES:
        for pad in PADDINGS:
            for data in (b"x" * pad + seq, seq + b"\n" * pad, b"\t" * pad + seq + b"y" * pad):
                for stop in (0, pad, 16_384):
                    assert scan(data, stop) == _scan_reference(data, stop), (seq, pad, stop)

    ascii_runs = st.text(alphabet="ab<>\n\t ", max_size=300).map(str.encode)
    pieces = st.binary(max_size=6) | st.sampled_from([b"\x00", b"\x01", b"\x0b", b"\x1b", b"\x1f", b"\x7f"]) | (
        st.text(max_size=4).map(lambda t: t.encode("utf-8", "surrogatepass")))

    @given(st.lists(ascii_runs | pieces, max_size=8), st.integers(0, 700))
    @settings(max_examples=1500, deadline=None)
    def agrees(parts, stop):
        data = b"".join(parts)
        assert scan(data, stop) == _scan_reference(data, stop)

    agrees()
    with pytest.raises(ValueError):
        scan(b"<p>", -1)


@pytest.mark.parametrize("impl", ["compiled", "python"])
def test_the_byte_scan_accepts_exactly_what_the_utf8_decoder_accepts(impl):
    scan = _scans(impl)[0]

    def decodes(data):
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return False
        return True

    @given(st.binary(max_size=40) | st.text(max_size=20).map(lambda t: t.encode("utf-8", "surrogatepass")),
           st.sampled_from(PADDINGS))
    @settings(max_examples=2000, deadline=None)
    def agrees(data, pad):
        data = (b"p" * pad + data).replace(b"\x00", b"\xc0")  # NUL is refused whatever the encoding
        assert (scan(data, 0) is not None) == decodes(data)
        assert (scan(data, 0) == "ascii") == data.isascii()

    agrees()


def test_the_control_bytes_are_the_text_paths_control_characters():
    from fce.parse import _CONTROL, _CONTROL_BYTES, _has_control_bytes

    assert {chr(b) for b in _CONTROL_BYTES} == {chr(c) for c in range(256) if _CONTROL.match(chr(c))}
    for byte in range(256):
        assert _has_control_bytes(bytes([byte])) == (byte in _CONTROL_BYTES)


SVG, MATHML = b"http://www.w3.org/2000/svg", b"http://www.w3.org/1998/Math/MathML"
BINDS_INPUTS = [
    b"", b"xmlns:", b"xmlns:svg=", b'xmlns:svg="', b'xmlns:svg="' + SVG, b'xmlns:svg="' + SVG + b'"',
    b"xmlns:svg='" + SVG + b"'", b"xmlns:svg='" + SVG + b'"', b'xmlns:svg = \n "' + SVG + b'"',
    b'xmlns:m="' + MATHML + b"'", b'xmlns:m="' + MATHML[:-1] + b'"', b'xmlns:m="' + MATHML + b'x"',
    b'xmlns="' + SVG + b'"', b'xmlns:a="http://a" xmlns:s="' + SVG + b'"', b'XMLNS:s="' + SVG + b'"',
    b'xmlns:\xc3\xa9="' + SVG + b'"', b"xmlns:s=x'" + SVG + b"'", b"xmlns:s='y' '" + SVG + b"'",
    b'xmlns:s="' + b"\x00" + SVG + b'"', b'xmlns:s' + b" " * 200 + b'="' + SVG + b'"',
    b'xmlns:a="' + SVG + b'"xmlns:b', b"xmlnsxmlns:", b"xxmlns:s='" + SVG + b"'",
]


def _loose_prefix_pattern(uris):
    return re.compile(rb"""xmlns:[^=]*=[^"']*["'](""" + b"|".join(map(re.escape, uris)) + rb""")["']""")


@pytest.mark.parametrize("impl", ["compiled", "python"])
def test_the_prefix_search_is_the_loose_pattern(impl):
    from fce.parse import _FOREIGN_PREFIX_LOOSE, _FOREIGN_URIS

    binds_prefix = _scans(impl)[1]
    assert _FOREIGN_URIS == (SVG, MATHML)
    assert _FOREIGN_PREFIX_LOOSE.pattern == _loose_prefix_pattern(_FOREIGN_URIS).pattern
    for sample in BINDS_INPUTS:
        for pad in PADDINGS:  # the compiled search tests chunks of positions: xmlns: across their ends
            for data in (b"x" * pad + sample, sample + b"=" * pad, b"<svg " * pad + sample + b">"):
                expected = _FOREIGN_PREFIX_LOOSE.search(data) is not None
                assert binds_prefix(data, _FOREIGN_URIS) == expected, (sample, pad)
    assert binds_prefix(b"xmlns:a='u'", (b"u",)) and not binds_prefix(b"xmlns:a='u'", (b"v",))

    pieces = st.sampled_from([b"xmlns:", b"xmlns", b"x", b":", b"=", b'"', b"'", b" ", b"\n", b"svg", b"a" * 70,
                              SVG, MATHML, SVG[:10], b"\xc3\xa9", b"<", b">", b"xmlns:a=", b"xmlns:b='"])
    uris = st.sampled_from([_FOREIGN_URIS, (SVG,), (b"a",), (b"'",), (b"",)])

    @given(st.lists(pieces, max_size=14), uris)
    @settings(max_examples=1500, deadline=None)
    def agrees(parts, uri_tuple):
        data = b"".join(parts)
        assert binds_prefix(data, uri_tuple) == (_loose_prefix_pattern(uri_tuple).search(data) is not None)

    agrees()


@pytest.mark.parametrize("impl", ["compiled", "python"])
def test_the_prefix_search_reads_each_byte_once(impl):
    # a regex match per xmlns: rescans to the next "=" and quote: hours on these; linear time, a fraction of a second
    from fce.parse import _FOREIGN_URIS

    binds_prefix = _scans(impl)[1]
    for data in (b"xmlns:" * 200_000, b"xmlns:a=" * 200_000, b"xmlns:a='x' " * 200_000):
        assert not binds_prefix(data, _FOREIGN_URIS)
        assert binds_prefix(data + b"xmlns:s='" + SVG + b"'", _FOREIGN_URIS)


META_INPUTS = [
    b"", b"<meta charset=utf-8>", b"<META CHARSET='ISO-8859-1'>", b'<meta charset = " utf-8 " >', b"<meta charset>",
    b"<metacharset=x>", b"<meta  charset=x", b"<meta>charset=x", b"<meta http-equiv=Content-Type "
    b'content="text/html; charset=windows-1251">', b"<meta name=a><meta charset=koi8-r>",
    b"<meta a=charset charset=big5>", b"<meta charset=\"'x\">", b"<meta charset=''x>", b"<meta charset='>",
    b"<meta charset=\xc3\xa9>", b"<<meta charset=a>", b"<meta <meta charset=b>", b"<mEtA\ncHaRsEt\t=\x0bq>",
    b"<meta charset=a.b_c:d-e/f>", b"<meta charset=" + b"x" * 300 + b">",
]


@pytest.mark.parametrize("impl", ["compiled", "python"])
def test_the_meta_charset_search_is_the_regex(impl):
    from fce.parse import _META_CHARSET

    meta_charset = _scans(impl)[2]

    def expected(data, stop):
        match = _META_CHARSET.search(data, 0, stop)
        return match.group(1) if match else None

    for sample in META_INPUTS:
        for data in (sample, b"<p>" * 50 + sample, sample + b"<meta charset=late>"):
            for stop in (*range(len(data) + 2), 8192):  # every end: a name or a keyword cut off
                assert meta_charset(data, stop) == expected(data, stop), (data, stop)

    pieces = st.sampled_from([b"<meta", b"<META", b"<mEta", b"<", b">", b" ", b"\t", b"charset", b"CharSet",
                              b"charse", b"=", b'"', b"'", b"utf-8", b"x", b"-", b"content=", b"\xc3\xa9", b"meta"])

    @given(st.lists(pieces, max_size=16), st.integers(0, 80))
    @settings(max_examples=1500, deadline=None)
    def agrees(parts, stop):
        data = b"".join(parts)
        assert meta_charset(data, stop) == expected(data, stop)

    agrees()
    with pytest.raises(ValueError):
        meta_charset(b"<meta charset=x>", -1)



def test_the_compiled_find_is_bytes_find():
    # fce.metadata reads the body window with it: the needle's two rarest bytes tested a chunk (128 bytes) at a time
    find = pytest.importorskip("fce._scan").find
    for needle in (b"<h1", b"uthor", b"datePublished", b"aa", b"a", b"<", b"ab" * 70, b"\x00\xff"):
        for pad in PADDINGS:
            for tail in (b"", b"x", b"x" * 130):
                data = b"a" * pad + needle + tail
                for start in (-1, 0, 1, pad, pad + 1):
                    for stop in (-1, 0, pad + len(needle) - 1, pad + len(needle), len(data), len(data) + 5):
                        assert find(data, needle, start, stop) == data.find(needle, start, stop), (
                            needle, pad, tail, start, stop)

    pieces = st.sampled_from([b"<", b"h", b"1", b"<h1", b"uthor", b"a", b" ", b"\xc3\xa9", b"x" * 100, b"\x00"])

    @given(st.lists(pieces, max_size=12), st.lists(pieces, max_size=3), st.integers(-3, 400), st.integers(-3, 500))
    @settings(max_examples=1500, deadline=None)
    def agrees(parts, needle_parts, start, stop):
        data, needle = b"".join(parts), b"".join(needle_parts)
        assert find(data, needle, start, stop) == data.find(needle, start, stop)

    agrees()
    with pytest.raises(TypeError):
        find("text", b"t", 0, 4)

def test_the_compiled_caseless_find_is_the_caseless_search():
    # fce.metadata finds the head's tags with it (<meta, </head, <title): what re's ASCII-caseless search finds
    find = pytest.importorskip("fce._scan").find_caseless

    def search(data: bytes, needle: bytes, start: int, stop: int) -> int:
        match = re.compile(re.escape(needle), re.IGNORECASE).search(data, start, stop)
        return -1 if match is None else match.start()

    for needle in (b"<meta", b"</head", b"<p", b"a", b"<", b"ab" * 70, b"\x00\xff"):
        for written in {needle, needle.upper(), needle.title(), needle.swapcase()}:
            for pad in PADDINGS:
                for tail in (b"", b"x", b"x" * 130):
                    data = b"a" * pad + written + tail
                    for start in (0, 1, pad, pad + 1):
                        for stop in (0, pad + len(needle) - 1, pad + len(needle), len(data), len(data) + 5):
                            assert find(data, needle, start, stop) == search(data, needle, start, stop), (
                                written, pad, tail, start, stop)
    # only letters fold: 0x1C ORed with 0x20 is "<", "@" ORed with 0x20 is "`"
    assert find(b"\x1cmeta <META", b"<meta", 0, 11) == 6
    assert find(b"`x@x", b"@x", 0, 4) == 2

    pieces = st.sampled_from([b"<", b"m", b"M", b"eta", b"ETA", b"<meta", b"<MeTa", b"\x1c", b" ", b"\xc3\xa9",
                              b"x" * 100, b"\x00"])

    @given(st.lists(pieces, max_size=12), st.sampled_from([b"<meta", b"</head", b"<body", b"m", b"eta"]),
           st.integers(0, 400), st.integers(0, 500))
    @settings(max_examples=1500, deadline=None)
    def agrees(parts, needle, start, stop):
        data = b"".join(parts)
        assert find(data, needle, start, stop) == search(data, needle, start, stop)

    agrees()
    with pytest.raises(ValueError, match="lowercase"):
        find(b"<META", b"<META", 0, 5)
    with pytest.raises(ValueError):
        find(b"<meta", b"<meta", -1, 5)


def test_the_compiled_meta_scan_reads_what_the_metadata_pattern_reads():
    # fce.metadata's head scan: _META.findall's key and content of each <meta>, followed in C
    meta_pairs = pytest.importorskip("fce._scan").meta_pairs
    from fce import metadata

    skips = metadata.META_MAX_SKIPPED

    def pattern(data: bytes, start: int, stop: int) -> list[tuple[bytes, bytes]]:
        syntax = metadata._SYNTAX[bytes]
        return [(k1 or k2 or k3 or j1 or j2 or j3, v1 or v2 or v3 or w1 or w2 or w3)
                for k1, k2, k3, v1, v2, v3, w1, w2, w3, j1, j2, j3 in syntax["meta"].findall(data, start, stop)]

    for data, expected in [
        (b'<meta name="a" content="b">', [(b"a", b"b")]),
        (b"<META CONTENT='x' PROPERTY=og:title><Meta\tHttp-Equiv = refresh\ncontent=\"5\">",
         [(b"og:title", b"x"), (b"refresh", b"5")]),
        (b'<meta charset="utf-8"><meta name="a"><meta content="b"><metadata name="a" content="b">', []),
        (b'<meta data-x="1" name="a" lang=en content="b">', [(b"a", b"b")]),
        (b'<meta content="a name=b" property="c">', [(b"c", b"a name=b")]),  # the skips split quoted values
        (b'<meta name="a" content="b<meta name=c content=d>">', [(b"a", b"b<meta name=c content=d>")]),
        (b'<meta name="unclosed content="b">', []),
        (b'<meta itemprop="" content="">', [(b"", b"")]),
    ]:
        assert pattern(data, 0, len(data)) == expected, data
        assert meta_pairs(data, 0, len(data), skips) == expected, data
        for stop in range(len(data) + 2):
            assert meta_pairs(data, 0, stop, skips) == pattern(data, 0, stop), (data, stop)
    # the skips are bounded as the pattern bounds them (unbounded, a tag of many keys took quadratic time)
    for n in (skips - 1, skips, skips + 1, 3 * skips):
        for data in (b"<meta " + b"x=1 " * n + b'name="a" content="b">', b'<meta name="a" ' + b"x " * n + b"content=b>",
                     b"<meta " + b"name=a " * n + b"content=b>"):
            assert meta_pairs(data, 0, len(data), skips) == pattern(data, 0, len(data)), (n, data[:40])
    data = b"<head><meta " + b"name=a " * 100_000 + b"></head>"
    started = time.perf_counter()
    assert meta_pairs(data, 0, len(data), skips) == pattern(data, 0, len(data)) == []
    assert time.perf_counter() - started < 2.0

    pieces = st.sampled_from([b"<meta", b"<META", b"<MeTa", b" ", b"\t", b"\n", b"\x0b", b"name", b"NAME",
                              b"property", b"itemprop", b"http-equiv", b"content", b"CONTENT", b"=", b" = ", b'"',
                              b"'", b'"x y"', b"'a'", b"og:title", b"x", b"<", b">", b"/>", b"\xc3\xa9",
                              b"\x1c"])

    @given(st.lists(pieces, max_size=24), st.integers(0, 40), st.integers(0, 200))
    @settings(max_examples=3000, deadline=None)
    def agrees(parts, start, stop):
        data = b"".join(parts)
        assert meta_pairs(data, start, stop, skips) == pattern(data, start, stop)

    agrees()
    with pytest.raises(ValueError):
        meta_pairs(b"<meta", -1, 5, skips)


def test_the_compiled_scans_are_built():
    # like the compiled segmentation (tests/test_blocks.py): the suite must not quietly test the fallback only
    import os

    from fce import parse

    if os.environ.get("FCE_NO_ACCEL", "") not in ("", "0"):
        assert not parse.SCANS_COMPILED
        return
    assert parse.SCANS_COMPILED, "fce._scan is not built: reinstall with a C compiler (pip install -e .)"


def test_many_attributes_are_cut():
    from fce.parse import MAX_ATTRIBUTES

    page = parse_page(SAME_TREE_INPUTS[-1])
    assert len(page.body.find("p").attrib) == MAX_ATTRIBUTES


@pytest.mark.parametrize("separator", ["<!DOCTYPE ", "<a ", "</x ", "<= ", "<!-- "])
def test_a_lt_inside_a_tag_does_not_hide_its_attributes(separator):
    # libxml2 reads on past such a "<" as a bogus attribute: the tag still holds all the attributes after it
    from fce.parse import MAX_ATTRIBUTES

    attributes = " ".join(f"a{i}=v" + (f" {separator}" if i % 500 == 499 else "") for i in range(6000))
    page = parse_page(f"<html><body><p {attributes}>kept</p><p>after</p></body></html>".encode())
    first = page.body.find("p")
    assert len(first.attrib) <= MAX_ATTRIBUTES + 1  # (the cut counts a bogus "<!DOCTYPE" as one)
    assert first.text == "kept" and page.body.findall("p")[1].text == "after"


#: Where a page goes on its way to the lxml tree: the walk from parse events (with or without ``blocks=``), a page
#: the walk leaves to the tree path (an SVG prefix renamed in the tree; a ``<noframes>``), and the tree path alone
#: (no walk: not compiled).
QUOTED_TAG_ROUTES = ["events", "no blocks", "foreign prefix", "noframes", "no walk"]


#: Ways of writing a tag's attributes with ``>`` in quoted values: a first attribute, then (separator, one
#: attribute's format).
QUOTED_TAG_SPELLINGS = {
    "double quotes": ("", " ", 'a{}="x>y"'),
    "single quotes": ("", " ", "a{}='x>y'"),
    "an apostrophe in an unquoted value first": ("x=don't ", " ", 'a{}="x>y"'),
    "a quote in a name first": ('x"y=1 ', " ", 'a{}="x>y"'),
    "no spaces": ("", "", 'a{}="x>y"'),
    "spaces around =": ("", " ", 'a{} = "x>y"'),
    "slashes": ("", "/", 'a{}="x>y"'),
    "names starting with =": ("", " ", '=a{}="x>y"'),
    "markup in values": ("", " ", 'a{}="<b>x</b>"'),
}


@pytest.mark.parametrize("route", QUOTED_TAG_ROUTES)
@pytest.mark.parametrize("spelling", QUOTED_TAG_SPELLINGS)
def test_a_tag_whose_gts_are_quoted_is_cut_on_every_path(spelling, route, monkeypatch):
    # no run of LONG_TAG_CHARS without ">" (the long-tag test's sign), yet one tag of 3,000 attributes: the walk
    # from parse events counts them, or the regex scan where the walk does not run, and the page is cut with
    # quotes followed as HTML5 does (a quote inside an unquoted value or a name opens nothing)
    from fce import blocks
    from fce.blocks import DEFAULT_PATH_STYLE, blocks_of, sax_available
    from fce.parse import MAX_ATTRIBUTES

    if route == "no walk":
        monkeypatch.setattr(blocks, "_ACCEL", None)
    elif not sax_available():
        pytest.skip("the walk from parse events is not built here")
    first, separator, attribute = QUOTED_TAG_SPELLINGS[spelling]
    attributes = first + separator.join(attribute.format(i) for i in range(3 * MAX_ATTRIBUTES))
    root = '<html xmlns:s="http://www.w3.org/2000/svg">' if route == "foreign prefix" else "<html>"
    before = "<noframes>x</noframes>" if route == "noframes" else ""
    page = parse_page(f"{root}<body>{before}<p {attributes}>kept</p><p>after</p></body></html>".encode(),
                      blocks=DEFAULT_PATH_STYLE if route == "events" else None)
    assert [t for t in blocks_of(page, DEFAULT_PATH_STYLE).texts if t][-2:] == ["kept", "after"]
    element = page.body.find("p")
    assert len(element.attrib) == MAX_ATTRIBUTES
    assert ("<b>x</b>" if "<b>" in attribute else "x>y") in element.attrib.values()
    assert element.text == "kept" and page.body.findall("p")[1].text == "after"


def test_a_long_tag_after_the_root_is_cut():
    # libxml2's tree builder builds an element after </html> too (and lxml does not show it): the walk counts its
    # attributes there, and the markup the tree is built from holds the first MAX_ATTRIBUTES
    from fce.blocks import sax_available
    from fce.parse import MAX_ATTRIBUTES

    if not sax_available():
        pytest.skip("the walk from parse events is not built here")
    attributes = " ".join(f'a{i}="x>y"' for i in range(3 * MAX_ATTRIBUTES))
    page = parse_page(f"<html><body><p>first</p></body></html><p {attributes}>after the root</p>".encode())
    assert f'a{MAX_ATTRIBUTES - 1}="x>y"'.encode() in page.markup
    assert f'a{MAX_ATTRIBUTES}="x>y"'.encode() not in page.markup
    assert [p.text for p in page.body.findall("p")] == ["first"]


@pytest.mark.parametrize("route", ["events", "no walk"])
def test_a_script_cut_as_a_long_tag_keeps_its_end_tag(route, monkeypatch):
    # in a script a "<" and a letter start no tag, but the long-tag cut reads it as one: the end tag survives, and
    # the check of the tree path (no walk) finds the cut tag within the limit, not to be cut again without it
    from fce import blocks
    from fce.parse import _limit_attributes

    if route == "no walk":
        monkeypatch.setattr(blocks, "_ACCEL", None)
    script = "var s = 0; if (s <n) {" + " s += 1;" * 6000 + "}"
    html = f"<html><body><script>{script}</script><p>after the script</p></body></html>"
    page = parse_page(html.encode())
    assert page.body.find("p").text == "after the script"
    cut = _limit_attributes(html)
    assert cut != html and _limit_attributes(cut, quoted=True) == cut


@pytest.mark.parametrize("extra", [-1, 0, 1, 2000])
def test_the_cut_leaves_a_tag_within_the_limit_and_keeps_its_end_tag(extra):
    # a long tag ending in an end tag's name: up to MAX_ATTRIBUTES attributes as libxml2 counts them (the end tag's
    # "<" and name among them) it is left as it is; over, it keeps MAX_ATTRIBUTES with the end tag
    from fce.parse import _ATTRIBUTE, MAX_ATTRIBUTES, _cut_attributes

    values = " ".join(f'a{i}="{"v" * 40}"' for i in range(MAX_ATTRIBUTES - 2 + extra))
    tag = f"<p {values}</x"
    cut = _cut_attributes(tag)
    assert (cut == tag) == (extra <= 0)
    assert cut.endswith("</x") and len(_ATTRIBUTE.findall(cut, 2)) == min(MAX_ATTRIBUTES, MAX_ATTRIBUTES + extra)


#: The definition the fast long-tag test is held to: "<", a letter, and LONG_TAG_CHARS characters that are not ">".
_LONG_TAG = re.compile(rf"<[A-Za-z][^>]{{{LONG_TAG_CHARS},}}")


@pytest.mark.parametrize("gap", [10, 16_383, 16_384, 16_385, 32_766, 32_767, 32_768, 32_769, 32_770, 40_000])
@pytest.mark.parametrize("offset", [0, 1, 5_000, 16_383, 16_384, 30_000])
@pytest.mark.parametrize("closed", [True, False])
@pytest.mark.parametrize("filler", ["x", "x>", "\u00e9"])
def test_long_tag_precheck_never_misses_a_long_tag(gap, offset, closed, filler):
    from fce.parse import _has_long_tag

    text = "<p>" + filler * offset + "<a" + "b" * gap + (">" if closed else "") + "<i>" * 3 + "y" * 100
    assert _has_long_tag(text) == (_LONG_TAG.search(text) is not None)
    data = text.encode()
    assert _has_long_tag(data) == (re.search(_LONG_TAG.pattern.encode(), data) is not None)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["<", ">", "<a", "<1", "x", "\u00e9", "<b ", "<!x ", "y" * 9_000, "z" * 20_000]),
                max_size=12))
def test_the_long_tag_test_is_the_regex(pieces):
    from fce.parse import _has_long_tag, _long_tags

    text = "".join(pieces)
    assert _has_long_tag(text) == (_LONG_TAG.search(text) is not None)
    assert _has_long_tag(text.encode()) == (re.search(_LONG_TAG.pattern.encode(), text.encode()) is not None)
    assert _long_tags(text) == [match.span() for match in _LONG_TAG.finditer(text)]


def test_the_long_tag_test_spares_the_scan_of_ordinary_pages():
    from fce.parse import _has_long_tag

    assert not _has_long_tag("<p>" + "<b>word</b> " * 50_000)
    assert not _has_long_tag("<script>" + "if (a > b) c();" * 5_000 + "</script>")  # no "<", but ">"
    assert not _has_long_tag("<p>" + "x" * 40_000)  # a long text, not a tag
    assert _has_long_tag("<p " + "x" * 40_000) and _has_long_tag(b"<p " + b"x" * 40_000)


def test_whitespace_only_bytes_are_empty():
    for data in (b"", b" \t\r\n\x0b\x0c"):
        with pytest.raises(EmptyPageError):
            parse_page(data)


def test_an_unknown_element_in_head_starts_the_body_of_a_page_without_one():
    # libxml2 keeps <mbox> in <head> and the whole page after it; a browser ends the head there (l3s-gn1 has one)
    page = parse_page(b"<html><head><title>T</title><meta charset=utf-8><mbox><table><tr><td><p>The article text."
                      b"</p></td></tr></table>tail text<p>More.</p></html>")
    assert [c.tag for c in page.root] == ["head", "body"]
    assert [c.tag for c in page.root.find("head")] == ["title", "meta"]
    assert fce.run_method("plain", page).text.split("\n") == ["The article text.", "tail text", "More."]


def test_stray_elements_in_head_stay_where_libxml2_put_them_when_there_is_a_body():
    page = parse_page(b"<html><head><title>T</title><wn></wn></head><body><p>Body text.</p></body></html>")
    assert [c.tag for c in page.root.find("head")] == ["title", "wn"]
    assert fce.run_method("plain", page).text == "Body text."


# --- charset labels: only the WHATWG Encoding Standard's count; anything else is no label ------------------------

LATIN_PAGE = "<html><head>{meta}</head><body><p>Café société, naïve façade: “quoted” text.</p></body></html>"
#: Python codecs that are not text encodings of web pages, and other labels no page may be decoded with.
NOT_WEB_LABELS = ["base64", "zlib", "hex", "bz2", "rot13", "rot-13", "uu", "quopri", "undefined", "punycode",
                  "idna", "utf-7", "utf7", "unicode_escape", "raw_unicode_escape", "mbcs", "oem", "utf_8_sig",
                  "utf-32", "cp037", "palmos", "x-user-defined", "iso-2022-kr", "hz-gb-2312", "replacement",
                  "utf\x00-8", "utf-8\x00", "\x00", "", "   ", "ütf-8", "utf-8; q=1"]


def _python_codec_names() -> list[str]:
    import encodings.aliases

    return sorted(set(encodings.aliases.aliases) | set(encodings.aliases.aliases.values()))


# (in <meta>, "utf-8\x00" and "utf-8; q=1" are read up to the first character no label has: "utf-8")
@pytest.mark.parametrize(("label", "where"), [(label, where) for label in NOT_WEB_LABELS for where in ("meta", "http")
                                              if where == "http" or not label.startswith("utf-8")])
def test_a_label_that_names_no_web_encoding_is_no_label(label, where):
    meta = f'<meta charset="{label}">' if where == "meta" else ""
    data = LATIN_PAGE.format(meta=meta).encode("cp1252")
    declared = label if where == "http" else None
    assert parse._labelled_codec(data, declared) is None
    page = parse_page(data, declared_charset=declared)
    assert "Café société" in body_text(page)
    if b"\x00" not in data:  # (a NUL in the page makes the detector abstain: then UTF-8, by the fallback)
        assert page.encoding == "cp1252"


@pytest.mark.parametrize(("label", "codec"), [
    ("utf-8", "utf-8"), (" UTF8 ", "utf-8"), ("unicode-1-1-utf-8", "utf-8"), ("'utf-8'", "utf-8"),
    ("iso-8859-1", "cp1252"), ("latin1", "cp1252"), ("US-ASCII", "cp1252"), ("iso8859_1", "cp1252"),
    ("windows-1251", "cp1251"), ("koi8-u", "koi8-u"), ("x-mac-cyrillic", "mac-cyrillic"), ("macintosh", "mac-roman"),
    ("tis-620", "cp874"), ("iso-8859-9", "cp1254"), ("iso-8859-8-i", "iso8859-8"), ("iso-8859-16", "iso8859-16"),
    ("gb2312", "gb18030"), ("GBK", "gb18030"), ("big5", "big5hkscs"), ("shift_jis", "cp932"), ("euc-kr", "cp949"),
    ("euc_kr", "cp949"), ("euc-jp", "euc_jp"), ("iso-2022-jp", "iso2022_jp"),
])
def test_whatwg_labels_name_their_codec(label, codec):
    assert parse._codec(label) == codec


def test_the_web_codecs_are_python_text_encodings():
    for codec in WEB_CODECS:
        info = codecs.lookup(codec)
        assert info.name == codec and info._is_text_encoding
    assert len(parse._LABELS) == sum(len(labels.split()) for labels in parse._WHATWG_LABELS.values())  # no repeats


def test_a_utf16_label_from_the_server_counts_only_for_utf16_bytes():
    text = "<html><body><p>" + "中文字符" * 2000 + "</p></body></html>"
    assert parse_page(text.encode("utf-16-le"), declared_charset="utf-16").encoding == "utf-16-le"
    ascii_page = LATIN_PAGE.format(meta="").encode("cp1252")
    assert parse_page(ascii_page, declared_charset="utf-16").encoding == "cp1252"  # the label is wrong
    assert parse_page(ascii_page.replace(b"<head>", b'<head><meta charset="utf-16">')).encoding == "utf-8"


_LABELS_STRATEGY = (st.sampled_from(_python_codec_names() + NOT_WEB_LABELS + sorted(parse._LABELS))
                    | st.text(max_size=20)
                    | st.sampled_from(sorted(parse._LABELS)).map(lambda s: s.upper() + "\x00"))


@settings(max_examples=1500, deadline=None)
@given(label=_LABELS_STRATEGY, body=st.sampled_from(["Café “quoted” text", "Привет мир", "中文字符", "plain"]),
       encoding=st.sampled_from(["utf-8", "cp1252", "cp1251", "gb18030", "utf-16"]), where=st.sampled_from(
           ["meta", "http", "both", "xml"]))
def test_no_charset_label_makes_parsing_raise_anything_undocumented(label, body, encoding, where):
    meta = f'<meta charset="{label}">' if where in ("meta", "both") else ""
    html = (f"<?xml version='1.0' encoding='{label}'?>" if where == "xml" else "") + \
        f"<html><head>{meta}</head><body><p>{body}</p></body></html>"
    data = html.encode(encoding, errors="replace")
    declared = label if where in ("http", "both") else None
    try:
        page = parse_page(data, declared_charset=declared)
    except fce.FceError:
        return
    assert page.encoding in WEB_CODECS | {"utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"}
    text, chosen = decode_html(data, declared)
    assert isinstance(text, str) and chosen == page.encoding
