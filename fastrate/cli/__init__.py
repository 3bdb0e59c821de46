"""The ``fastrate`` command line: click group and error handling.

Only click is imported here; NumPy, Numba and pyarrow load inside the commands, so
``fastrate --help`` stays fast. Errors fastrate raises on purpose become one line on
stderr and exit status 1 (``--debug`` shows the traceback); usage errors exit 2.
"""

from __future__ import annotations

import sys

import click

from fastrate import __version__

_DEBUG = {"on": False}


class _Terminated(KeyboardInterrupt):
    """SIGTERM (or SIGHUP), raised where the program is, so that it unwinds as for Ctrl-C
    (SIGINT): temporary output files are removed and existing outputs stay as they were.
    ``args[0]``: the signal number (the exit status is 128 plus it)."""


def _raise_terminated(signum, frame) -> None:
    import signal

    # a second signal must not break off the clean-up the first one started
    for sig in _STOP_SIGNALS:
        if hasattr(signal, sig):
            signal.signal(getattr(signal, sig), signal.SIG_IGN)
    raise _Terminated(signum)


#: the signals that stop a run as Ctrl-C does (the ones that exist on this platform)
_STOP_SIGNALS = ("SIGTERM", "SIGHUP")


def _on_sigterm_interrupt() -> dict | None:
    """Make SIGTERM and SIGHUP unwind like SIGINT (main thread only; a signal the parent
    set to be ignored, as ``nohup`` does SIGHUP, stays ignored); the previous handlers,
    or None."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return None
    previous = {}
    for sig in _STOP_SIGNALS:
        number = getattr(signal, sig, None)
        if number is not None and signal.getsignal(number) == signal.SIG_DFL:
            previous[sig] = signal.signal(number, _raise_terminated)
    return previous


def _restore_sigterm(previous: dict | None) -> None:
    import signal

    for sig, handler in (previous or {}).items():
        signal.signal(getattr(signal, sig), handler)


def _fastrate_warning() -> type:
    from fastrate.errors import FastrateWarning

    return FastrateWarning


def _show_warning(other, message, category, filename, lineno, file=None, line=None
                  ) -> None:
    """A :class:`~fastrate.errors.FastrateWarning` as one ``fastrate: warning:`` line on
    stderr; any other warning as ``other`` (the ``showwarning`` before) shows it."""
    if issubclass(category, _fastrate_warning()):
        click.echo(f"fastrate: warning: {' '.join(str(message).split())}", err=True)
    else:
        other(message, category, filename, lineno, file, line)


class _Group(click.Group):
    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True,
             **extra):
        """Click's main loop, with usage errors as one line (``fastrate: error: ...``)
        and exit status 2 instead of click's usage block."""
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        previous = _on_sigterm_interrupt()
        try:
            rv = super().main(args, prog_name, complete_var, False, **extra)
        except click.UsageError as exc:
            if type(exc).__name__ == "NoArgsIsHelpError":  # a bare group: its help
                click.echo(exc.format_message(), err=True)
                sys.exit(exc.exit_code)
            where = exc.ctx.command_path if exc.ctx is not None else "fastrate"
            click.echo(f"fastrate: error: {exc.format_message()} (see '{where} --help')",
                       err=True)
            sys.exit(exc.exit_code)
        except click.ClickException as exc:
            click.echo(f"fastrate: error: {exc.format_message()}", err=True)
            sys.exit(exc.exit_code)
        except click.exceptions.Abort:
            click.echo("fastrate: aborted", err=True)
            sys.exit(1)
        finally:
            _restore_sigterm(previous)
        sys.exit(rv if isinstance(rv, int) else 0)

    def invoke(self, ctx: click.Context):
        import warnings
        from functools import partial

        try:
            with warnings.catch_warnings():  # fastrate's own warnings: one line each
                warnings.simplefilter("default", _fastrate_warning())
                warnings.showwarning = partial(_show_warning, warnings.showwarning)
                return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except _Terminated as exc:
            click.echo("fastrate: terminated", err=True)
            sys.exit(128 + (exc.args[0] if exc.args else 15))
        except KeyboardInterrupt:
            click.echo("fastrate: interrupted", err=True)
            sys.exit(130)
        except BrokenPipeError:  # the reader went away (| head): stop quietly
            import os

            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            sys.exit(141)
        except Exception as exc:  # noqa: BLE001 - the one place errors become messages
            from fastrate.errors import FastrateError

            if _DEBUG["on"]:
                raise
            if isinstance(exc, (FastrateError, OSError, ImportError)):
                msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            else:
                msg = (f"internal error ({type(exc).__name__}: {exc}); rerun with --debug and "
                       "report it")
            click.echo(f"fastrate: error: {msg}", err=True)
            sys.exit(1)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="fastrate")
@click.option("--debug", is_flag=True, help="Show full tracebacks on errors.")
def main(debug: bool) -> None:
    """fastrate: a compiled rating engine for games and competitions.

    \b
    Examples:
      fastrate rate --example football --top 10
      fastrate rate games.csv --system glicko2 --period 1w -o ratings.csv
      fastrate evaluate games.csv --system elo --system "elo:k=20" --system glicko2
      fastrate warmup
    """
    _DEBUG["on"] = debug


def _register(group: click.Group) -> None:
    """Add every command and command group (each module is one group; they share only
    :mod:`fastrate.cli._common`)."""
    from fastrate.cli.backgammon import backgammon_group
    from fastrate.cli.batch import batch_command
    from fastrate.cli.bridge import bridge_group
    from fastrate.cli.commands import (
        evaluate_command,
        rate_command,
        systems_command,
        warmup_command,
    )
    from fastrate.cli.ladder import ladder_group
    from fastrate.cli.placement import placement_group
    from fastrate.cli.plot import plot_group
    from fastrate.cli.report import report_command
    from fastrate.cli.tune import tune_command

    for cmd in (rate_command, evaluate_command, tune_command, batch_command, systems_command,
                warmup_command,
                bridge_group,
                placement_group, backgammon_group, ladder_group, plot_group, report_command):
        _guard_outputs(cmd)
        group.add_command(cmd)


def _guard_outputs(cmd: click.Command) -> None:
    """Check every command's output paths before it runs (an output naming an input or
    another output is refused: :func:`fastrate.cli._common.check_output_paths`)."""
    import functools

    from fastrate.cli._common import check_output_paths, is_output_param

    if isinstance(cmd, click.Group):
        for sub in cmd.commands.values():
            _guard_outputs(sub)
        return
    callback = cmd.callback
    if callback is None or getattr(callback, "_outputs_checked", False) or not any(
            is_output_param(p) for p in cmd.params):
        return

    @functools.wraps(callback)
    def checked(*args, **kwargs):
        check_output_paths(cmd, kwargs)
        return callback(*args, **kwargs)

    checked._outputs_checked = True  # type: ignore[attr-defined]
    cmd.callback = checked


_register(main)

__all__ = ["main"]
