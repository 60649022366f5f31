"""A small reader of DOT text, written for the tests (independent of the renderer).

It knows just enough DOT to read what a figure says: node statements, edge statements
(`a -> b [attrs]`), `subgraph cluster_X { ... }` nesting and attributes whose values
are IDs, quoted strings (with `\\"` escapes) or HTML strings (`<...>`, nested angle
brackets). Graph/node/edge default statements and `key=value` graph attributes are read
into `Graph.attrs` / skipped.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

_TOKEN = re.compile(
    r"""\s*(?:
        (?P<arrow>->)
      | (?P<punct>[{}\[\]=;,])
      | "(?P<quoted>(?:[^"\\]|\\.)*)"
      | (?P<id>[A-Za-z0-9_.\-]+)
    )""",
    re.VERBOSE | re.DOTALL,
)


@dataclass
class Edge:
    source: str
    target: str
    attrs: dict[str, str]


@dataclass
class Graph:
    attrs: dict[str, str] = field(default_factory=dict)
    nodes: dict[str, dict[str, str]] = field(default_factory=dict)
    node_cluster: dict[str, str | None] = field(default_factory=dict)
    clusters: dict[str, dict[str, str]] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)


def _tokens(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pos = 0
    while pos < len(text):
        if text[pos].isspace():
            pos += 1
            continue
        if text[pos] == "<":  # HTML string: balanced angle brackets
            depth, end = 0, pos
            while True:
                if text[end] == "<":
                    depth += 1
                elif text[end] == ">":
                    depth -= 1
                    if depth == 0:
                        break
                end += 1
            out.append(("html", text[pos + 1 : end]))
            pos = end + 1
            continue
        match = _TOKEN.match(text, pos)
        if match is None:
            raise ValueError(f"cannot read DOT at {text[pos : pos + 40]!r}")
        kind = match.lastgroup
        assert kind is not None
        value = match.group(kind)
        if kind == "quoted":
            value = re.sub(r'\\(["\\])', r"\1", value)
        out.append((kind, value))
        pos = match.end()
    return out


def parse(text: str) -> Graph:
    tokens = _tokens(text)
    graph = Graph()
    index = 0

    def value() -> str:
        nonlocal index
        kind, val = tokens[index]
        index += 1
        assert kind in ("id", "quoted", "html"), (kind, val)
        return val

    def attr_list() -> dict[str, str]:
        nonlocal index
        attrs: dict[str, str] = {}
        assert tokens[index] == ("punct", "[")
        index += 1
        while tokens[index] != ("punct", "]"):
            if tokens[index][0] == "punct":  # , or ;
                index += 1
                continue
            key = value()
            assert tokens[index] == ("punct", "=")
            index += 1
            attrs[key] = value()
        index += 1
        return attrs

    def body(cluster: str | None) -> None:
        nonlocal index
        while True:
            kind, val = tokens[index]
            if (kind, val) == ("punct", "}"):
                index += 1
                return
            if kind == "punct":
                index += 1
                continue
            if kind == "id" and val == "subgraph":
                index += 1
                name = value()
                assert tokens[index] == ("punct", "{")
                index += 1
                graph.clusters.setdefault(name, {})
                body(name)
                continue
            if (
                kind == "id"
                and val in ("graph", "node", "edge")
                and tokens[index + 1]
                == (
                    "punct",
                    "[",
                )
            ):
                index += 1
                attrs = attr_list()
                if val == "graph":
                    (graph.clusters[cluster] if cluster else graph.attrs).update(attrs)
                continue
            first = value()
            if tokens[index] == ("punct", "="):  # key=value graph attribute
                index += 1
                (graph.clusters[cluster] if cluster else graph.attrs)[first] = value()
                continue
            if tokens[index][0] == "arrow":
                index += 1
                second = value()
                attrs = attr_list() if tokens[index] == ("punct", "[") else {}
                graph.edges.append(Edge(first, second, attrs))
                continue
            attrs = attr_list() if tokens[index] == ("punct", "[") else {}
            graph.nodes[first] = attrs
            graph.node_cluster[first] = cluster

    assert tokens[0] == ("id", "digraph")
    index = 1
    if tokens[index][0] != "punct":
        index += 1
    assert tokens[index] == ("punct", "{")
    index += 1
    body(None)
    return graph


def text_of(label: str) -> str:
    """The visible text of an HTML label (tags dropped, entities decoded)."""
    return " ".join(html.unescape(re.sub(r"<[^>]*>", " ", label)).split())


def bold_of(label: str) -> list[str]:
    """The bold runs of an HTML label (transition numbers and letters)."""
    return re.findall(r"<b>(.*?)</b>", label)
