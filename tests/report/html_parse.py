"""A small HTML reader for the report tests: tables as text grids, every URL attribute."""

from __future__ import annotations

from html.parser import HTMLParser


class ReportParser(HTMLParser):
    """Collects tables (id -> rows of cell text), tag names and URL-valued attributes."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[list[list[str]]] = []
        self.table_ids: list[str] = []
        self.tags: list[str] = []
        self.urls: list[str] = []
        self.text: list[str] = []
        self._block_id = ""
        self._cell: list[str] | None = None
        self._depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        values = dict(attrs)
        for name in ("src", "href", "action", "srcset", "poster", "data"):
            if values.get(name):
                self.urls.append(str(values[name]))
        if tag == "div" and "table-block" in (values.get("class") or ""):
            self._block_id = values.get("id") or ""
        if tag == "table":
            self.tables.append([])
            self.table_ids.append(self._block_id)
            self._block_id = ""
        elif tag == "tr" and self.tables:
            self.tables[-1].append([])
        elif tag in ("td", "th") and self.tables:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None and self.tables and self.tables[-1]:
            self.tables[-1][-1].append(" ".join("".join(self._cell).split()))
            self._cell = None

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)

    def table(self, table_id: str) -> list[list[str]]:
        return self.tables[self.table_ids.index(table_id)]


def parse(html: str) -> ReportParser:
    parser = ReportParser()
    parser.feed(html)
    return parser
