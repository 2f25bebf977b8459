"""Option bundles shared by several commands, so each command states its options in one line."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])


def paths_argument(*, required: bool = True) -> Callable[[F], F]:
    """`PATH...`: conversation folders, folders holding many conversations, or single files.

    Existence is checked by the library, so a broken link or a symlink loop is reported as a
    problem naming the path (exit 1) rather than as a usage error.
    """
    argument = click.argument(
        "paths", nargs=-1, required=required, type=PATH_OR_URL, metavar="PATH..."
    )

    def decorate(f: F) -> F:
        return storage_option(argument(f), last=True)

    return decorate


def examples(*lines: str) -> str:
    """A command's epilog: `Examples:` and one command line each, kept as written by click."""
    body = "\n".join(f"  {line}" for line in lines)
    return f"\b\nExamples:\n{body}"


class _PathOrURL(click.ParamType):  # type: ignore[type-arg]
    """A local path (`Path`), or a storage URL such as `s3://bucket/prefix` (a storage location)."""

    name = "path"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if not isinstance(value, str):
            return value
        from trajkit.store.location import as_location

        try:
            return as_location(value)
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


PATH_OR_URL = _PathOrURL()
"""Click type for PATH arguments and outputs that may live in object storage."""


def _set_storage_options(
    ctx: click.Context, param: click.Parameter, values: tuple[str, ...]
) -> None:
    from trajkit.store.location import set_storage_options

    options: dict[str, Any] = {}
    for item in values:
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"{item!r}: expected KEY=VALUE", ctx=ctx, param=param)
        try:
            options[key] = json.loads(raw)  # numbers, booleans, objects
        except ValueError:
            options[key] = raw
    set_storage_options(options)


def storage_option(f: F, *, last: bool = False) -> F:
    """`--storage-option KEY=VALUE`: fsspec options for `s3://`/`gs://` paths (repeatable).

    With `last`, the option is listed after every other one in `--help` (an object-storage knob
    is not what a reader of the help looks for first); being eager, it still runs first.
    """
    decorated = click.option(
        "--storage-option",
        multiple=True,
        metavar="KEY=VALUE",
        is_eager=True,  # before PATH... is converted, so the paths carry these options
        expose_value=False,
        callback=_set_storage_options,
        help="Option for s3:// or gs:// paths, e.g. endpoint_url=http://host:9000 (repeatable).",
    )(f)
    params = getattr(decorated, "__click_params__", None)
    if last and params:  # click lists the first-applied decorator last
        params.insert(0, params.pop())
    return decorated


def json_option(help_text: str = "Print a machine-readable JSON report.") -> Callable[[F], F]:
    """`--json`: print one JSON document instead of text lines."""
    return click.option("--json", "as_json", is_flag=True, help=help_text)


def jobs_option(f: F) -> F:
    """`--jobs N`: worker processes for many conversations (default: the number of cores, at most 2)."""
    return click.option(
        "--jobs",
        "-j",
        type=click.IntRange(min=1),
        default=None,
        help="Worker processes for many conversations (default: up to 2).",
    )(f)


def jobs_alias(alias: str) -> Callable[[F], F]:
    """A hidden `alias` still accepted for `--jobs` (the option's former name on a command).

    Put it above `engine_options`, which takes `--jobs` in.
    """

    def decorate(f: F) -> F:
        @functools.wraps(f)
        def command(*args: Any, jobs_alias: int | None = None, **kwargs: Any) -> Any:
            if kwargs.get("jobs") is None:
                kwargs["jobs"] = jobs_alias
            return f(*args, **kwargs)

        option = click.option(
            alias, "jobs_alias", type=click.IntRange(min=1), default=None, hidden=True
        )
        return option(command)  # type: ignore[return-value]

    return decorate


def engine_options(f: F) -> F:
    """`--jobs N`, `--engine local|ray` and `--address ADDR`: where per-conversation work runs.

    The command receives one `engine` argument: a function opening that engine as a context
    manager (`trajkit.engine.open_engine`), called only when there is work for it (a Ray
    instance is not started for one conversation).
    """

    @functools.wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from trajkit.engine import open_engine

        name, workers, address = kwargs.pop("engine"), kwargs.pop("jobs"), kwargs.pop("address")
        kwargs["engine"] = functools.partial(open_engine, name, workers=workers, address=address)
        return f(*args, **kwargs)

    return _stack(wrapper, [  # type: ignore[no-any-return]
        click.option("--engine", type=click.Choice(["local", "ray"]), default="local",
                     show_default=True, help="Run on this machine's worker processes, or on "
                     "Ray (pip install 'trajkit[ray]')."),
        click.option("--address", default=None, metavar="ADDR",
                     help="Ray cluster to join: HOST:PORT of its head, ray://HOST:10001, or "
                     "auto (default with --engine ray: start a local Ray)."),
        jobs_option,
    ])  # fmt: skip


def _stack(f: Callable[..., Any], options: list[Callable[[Any], Any]]) -> Any:
    """`f` with `options` applied, listed in `--help` in the order given."""
    for option in reversed(options):
        f = option(f)
    return f


def filter_options(f: F) -> F:
    """`--status`, `--model`, `--since`, `--until`, `--tool`: which conversations to work on.

    The command receives them as one `filters: ConversationFilters` argument (see
    `trajkit.filters` for what each means; the same in every command).
    """
    from trajkit.events.state import EXECUTION_STATUSES  # the one status list

    @functools.wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from trajkit.filters import ConversationFilters

        kwargs["filters"] = ConversationFilters(
            statuses=kwargs.pop("status"),
            models=kwargs.pop("model"),
            since=_parse_time(kwargs.pop("since"), end=False),
            until=_parse_time(kwargs.pop("until"), end=True),
            tools=kwargs.pop("tool"),
        )
        return f(*args, **kwargs)

    options = [
        click.option("--status", multiple=True, type=click.Choice(EXECUTION_STATUSES),
                     help="Keep conversations with this execution status (repeatable)."),
        click.option("--model", multiple=True,
                     help="Keep this model: name, name without provider, or glob (repeatable)."),
        click.option("--since", metavar="TIME",
                     help="Keep conversations started at or after this date/time."),
        click.option("--until", metavar="TIME",
                     help="Keep conversations started before this date/time (a date: through that day)."),
        click.option("--tool", multiple=True,
                     help="Keep conversations that called this tool (repeatable)."),
    ]  # fmt: skip
    return _stack(wrapper, options)  # type: ignore[no-any-return]


def _parse_time(value: str | None, *, end: bool) -> datetime | None:
    """`2026-01-31` or an ISO date-time; a bare date as `--until` means the end of that day."""
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a date (YYYY-MM-DD) or ISO date-time") from None
    if end and len(value) == 10:  # a date: include the whole day
        return datetime.combine(date.fromisoformat(value), datetime.min.time()) + timedelta(days=1)
    if parsed.tzinfo is not None:  # timestamps are naive; compare in UTC
        parsed = parsed.astimezone(UTC).replace(tzinfo=None)
    return parsed


def _set_verbosity(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if not value:
        return
    level = 1 if param.name == "verbose" else -1
    if ctx.meta.get("trajkit.verbosity", level) != level:
        raise click.UsageError("-v and -q contradict each other", ctx=ctx)
    ctx.meta["trajkit.verbosity"] = level


def verbosity_options(f: F) -> F:
    """`-v/--verbose` (every warning, one line each) and `-q/--quiet` (no warnings or notes).

    By default a warning repeated over many conversations is one line with a count
    (`trajkit.cli._output.Notes`). Read with `trajkit.cli._output.verbosity()`.
    """
    for name, flag, text in (
        ("quiet", "-q", "Print no warnings or notes (errors and the summary only)."),
        ("verbose", "-v", "Print every warning, one line each, instead of one line per kind."),
    ):
        f = click.option(
            flag, f"--{name}", name, is_flag=True, expose_value=False,
            callback=_set_verbosity, help=text,
        )(f)  # fmt: skip
    return f


def conversion_options(f: F) -> F:
    """`--view`, `--no-reasoning`, `--reasoning-content`, `--no-system`, `--images`,
    `--dangling`: what a conversion keeps. The command receives one `options:
    ConversionOptions` argument (`trajkit.convert.options`).
    """

    @functools.wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from trajkit.convert.options import ConversionOptions
        from trajkit.errors import UsageError

        no_reasoning, send = kwargs.pop("no_reasoning"), kwargs.pop("reasoning_content")
        if send and no_reasoning:
            raise UsageError("--reasoning-content and --no-reasoning contradict each other")
        kwargs["options"] = ConversionOptions(
            view=kwargs.pop("view"), reasoning=not no_reasoning,
            system=not kwargs.pop("no_system"), images=kwargs.pop("images"),
            dangling=kwargs.pop("dangling"), send_reasoning_content=send,
        )  # fmt: skip
        return f(*args, **kwargs)

    options = [
        click.option("--view", type=click.Choice(["condensed", "full"]), default="condensed",
                     show_default=True, help="What the model saw after condensation, or every event."),
        click.option("--no-reasoning", is_flag=True, help="Drop reasoning content and thinking blocks."),
        click.option("--reasoning-content", is_flag=True,
                     help="Chat: send reasoning_content on every assistant message that has one "
                     "(the SDK sends it back only to the models that need it)."),
        click.option("--no-system", is_flag=True, help="Drop the system message (instructions)."),
        click.option("--images", type=click.Choice(["keep", "placeholder"]), default="keep",
                     show_default=True, help="Keep image data URLs or replace each by '[image]'."),
        click.option("--dangling", type=click.Choice(["drop", "synthesize", "report"]),
                     default="drop", show_default=True,
                     help="Unanswered tool calls: drop them, add an error result, or only report them."),
    ]  # fmt: skip
    return _stack(wrapper, options)  # type: ignore[no-any-return]


def redact_option(f: F) -> F:
    """`--no-redact`: every output masks provider keys and JSON Web Tokens unless this is given.

    The command receives `masker`: a `trajkit.redact.SecretMasker` of API keys whose `count`
    says how many were masked (the summary says it; `cli._output.masked_note`), or None.
    """

    @functools.wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from trajkit.redact import SecretMasker

        kwargs["masker"] = None if kwargs.pop("no_redact") else SecretMasker((), api_keys=True)
        return f(*args, **kwargs)

    return click.option(  # type: ignore[return-value]
        "--no-redact",
        is_flag=True,
        help="Show secrets as they are (default: API keys and tokens are masked as **********).",
    )(wrapper)
