"""The one jinja2 Environment of every report: templates from `audit.templates`, autoescape
on for everything, and the format filters of `audit.report.formatting`."""

from __future__ import annotations

from functools import lru_cache
from importlib.resources import files

from jinja2 import BaseLoader, Environment, StrictUndefined, TemplateNotFound

from audit.report import formatting

TEMPLATE_PACKAGE = "audit.templates"


class PackageLoader(BaseLoader):
    """Loads templates through importlib.resources, so they work from a wheel or a zip."""

    def get_source(self, environment: Environment, template: str) -> tuple[str, None, None]:
        resource = files(TEMPLATE_PACKAGE).joinpath(template)
        if not resource.is_file():
            raise TemplateNotFound(template)
        return resource.read_text(encoding="utf-8"), None, None


def read_asset(name: str) -> str:
    """A static file shipped with the templates (the CSS)."""
    return files(TEMPLATE_PACKAGE).joinpath(name).read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def environment() -> Environment:
    """The report environment: autoescape always on, undefined names are errors."""
    env = Environment(
        loader=PackageLoader(),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    # What a report template renders (audit/report/render.py): the whole report by default.
    env.globals.update(part="whole", appendix_sha256=None, tight=0)
    env.filters.update(
        num=formatting.fmt_num,
        ci=formatting.fmt_ci,
        pvalue=formatting.fmt_p,
        pct=formatting.fmt_pct,
        count=formatting.fmt_count,
        date=formatting.fmt_date,
        shorthash=formatting.fmt_hash,
        seconds=formatting.fmt_seconds,
    )
    return env
