"""``import argparse`` in scripts: differential against real Python's argparse (printed help and
namespace, via ``script_diff.check_script``; both given ``prog`` and an explicit argument list,
because the real one would read pytest's command line), ``parse_args()`` parsing an empty command
line, and errors: argparse's own message, raised as its ``SystemExit``, at the script's line."""

from __future__ import annotations

import argparse
import contextlib
import io

import pytest

from engine.script import ScriptError, run
from tests.engine.script.script_diff import check_script

PARSER = """
import argparse
parser = argparse.ArgumentParser(prog='main.py', description='PyTorch MNIST Example')
parser.add_argument('--batch-size', type=int, default=64, metavar='N',
                    help='input batch size for training (default: %(default)s)')
parser.add_argument('--lr', type=float, default=1.0, metavar='LR', help='learning rate')
parser.add_argument('--no-cuda', action='store_true', default=False, help='disables CUDA')
parser.add_argument('--opt', choices=['sgd', 'adam'], default='sgd')
parser.add_argument('--sizes', nargs='+', type=int, default=[1, 2])
parser.add_argument('--pair', nargs=2, type=float, metavar=('LO', 'HI'))
parser.add_argument('-v', '--verbose', action='count', default=0)
parser.add_argument('--tag', action='append')
group = parser.add_argument_group('model')
group.add_argument('--emsize', type=int, default=200)
parser.set_defaults(seed=1)
"""

SNIPPETS = {
    "defaults": PARSER + """
args = parser.parse_args([])
print(args)
cfg = (args.batch_size, args.lr, args.no_cuda, args.opt, args.sizes, args.pair, args.verbose,
       args.tag, args.emsize, args.seed)
args.device = 'cpu'
print(args.device, 'lr' in args, parser.get_default('lr'))
""",
    "parsed": PARSER + """
args = parser.parse_args(['--lr', '0.1', '--sizes', '3', '4', '--no-cuda', '-vv',
                          '--pair', '0.5', '2', '--tag', 'a', '--tag', 'b', '--opt=adam',
                          '--batch-size=8'])
cfg = (args.batch_size, args.lr, args.no_cuda, args.opt, args.sizes, args.pair, args.verbose,
       args.tag)
known, rest = parser.parse_known_args(['--lr', '2', '--other', 'x'])
print(known.lr, rest)
""",
    "help": PARSER + """
parser.print_help()
print(parser.format_usage())
""",
    "type_function": """
import argparse
def positive(text):
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError('must be positive')
    return value
p = argparse.ArgumentParser(prog='main.py')
p.add_argument('--k', type=positive, default='3')
p.add_argument('epochs', type=int, nargs='?', default=10)
k = p.parse_args([]).k
both = p.parse_args(['--k', '5', '7'])
pair = (both.k, both.epochs)
ns = argparse.Namespace(a=1)
ns.b = 2
print(ns, ns == argparse.Namespace(a=1, b=2))
""",
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_argparse_matches_python(name):
    check_script(SNIPPETS[name])


def test_parse_args_without_a_list_parses_an_empty_command_line():
    ns = run(PARSER + "args = parser.parse_args()\nsame = args == parser.parse_args([])\n")
    assert ns["same"] is True
    assert vars(ns["args"]) == vars(_real_parse(PARSER, []))


def _real_parse(source, argv):
    scope = {}
    exec(source, scope)
    return scope["parser"].parse_args(argv)


def _real_error(source, argv) -> tuple[int, str]:
    """argparse's exit status and the last line it wrote to stderr."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), pytest.raises(SystemExit) as exit_:
        _real_parse(source, argv)
    return exit_.value.code, err.getvalue().strip().splitlines()[-1]


@pytest.mark.parametrize("argv", [
    ["--lr", "fast"], ["--opt", "rmsprop"], ["--pair", "1"], ["--unknown"], ["--sizes"],
    ["extra"],
])
def test_bad_arguments_end_the_script_with_argparse_message_at_the_line(argv):
    source = PARSER + f"x = 1\nargs = parser.parse_args({argv!r})\n"
    status, text = _real_error(PARSER, argv)
    with pytest.raises(ScriptError) as err:
        run(source)
    assert err.value.kind == "runtime"
    assert err.value.line == source.count("\n")
    assert err.value.message == f"SystemExit: {status}: {text}"
    assert isinstance(err.value.__cause__, SystemExit)


def test_required_argument_missing_from_the_empty_command_line():
    source = "import argparse\np = argparse.ArgumentParser(prog='main.py')\n" \
             "p.add_argument('data')\nargs = p.parse_args()\n"
    status, text = _real_error("import argparse\np = argparse.ArgumentParser(prog='main.py')\n"
                               "p.add_argument('data')\nparser = p\n", [])
    with pytest.raises(ScriptError) as err:
        run(source)
    assert (err.value.line, err.value.message) == (4, f"SystemExit: {status}: {text}")


def test_help_flag_prints_the_help_and_ends_the_script():
    from engine.script import Interpreter

    interp = Interpreter(PARSER + "parser.parse_args(['-h'])\nafter = 1\n")
    with pytest.raises(ScriptError) as err:
        interp.run()
    assert err.value.message == "SystemExit: 0"
    scope = {}
    exec(PARSER, scope)
    assert "".join(interp.output).strip() == scope["parser"].format_help().strip()
    assert "after" not in interp.globals


@pytest.mark.parametrize("call, kind", [
    ("argparse.ArgumentParser(fromfile_prefix_chars='@')", "forbidden"),
    ("p.add_argument('--x', action=argparse.Namespace)", "forbidden"),
    ("p.parse_args([], namespace=p)", "forbidden"),
    ("p.add_argument('--x', nargs=10**6)", "limit"),
    ("p.add_argument('--x', choices=range(10**9))", "limit"),
])
def test_refused_uses_name_the_line(call, kind):
    source = f"import argparse\np = argparse.ArgumentParser()\nx = {call}\n"
    with pytest.raises(ScriptError) as err:
        run(source)
    assert (err.value.kind, err.value.line) == (kind, 3)


def test_argparse_module_is_the_real_one_here():
    # the stand-in's Namespace is argparse's, so that scripts can compare and build them
    ns = run("import argparse\nn = argparse.Namespace(a=1)\n")
    assert type(ns["n"]) is argparse.Namespace
