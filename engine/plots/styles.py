"""matplotlib's style conventions: colours, the ``fmt`` string of ``plot``, line styles, markers
and the default colour cycle, with matplotlib's error messages."""

from __future__ import annotations

import re

# matplotlib's default property cycle ('tab10'); each Axes has one for lines and one for patches
CYCLE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
         "#7f7f7f", "#bcbd22", "#17becf")
BASE_COLORS = {"b": "#0000ff", "g": "#008000", "r": "#ff0000", "c": "#00bfbf", "m": "#bf00bf",
               "y": "#bfbf00", "k": "#000000", "w": "#ffffff"}
TABLEAU = {f"tab:{n}": c for n, c in zip(
    ("blue", "orange", "green", "red", "purple", "brown", "pink", "gray", "olive", "cyan"), CYCLE)}
TABLEAU["tab:grey"] = TABLEAU["tab:gray"]
CSS4 = {
    "black": "#000000", "white": "#ffffff", "red": "#ff0000", "green": "#008000",
    "blue": "#0000ff", "yellow": "#ffff00", "cyan": "#00ffff", "magenta": "#ff00ff",
    "gray": "#808080", "grey": "#808080", "orange": "#ffa500", "purple": "#800080",
    "brown": "#a52a2a", "pink": "#ffc0cb", "olive": "#808000", "navy": "#000080",
    "teal": "#008080", "lime": "#00ff00", "maroon": "#800000", "silver": "#c0c0c0",
    "gold": "#ffd700", "violet": "#ee82ee", "indigo": "#4b0082", "crimson": "#dc143c",
    "coral": "#ff7f50", "salmon": "#fa8072", "tomato": "#ff6347", "orchid": "#da70d6",
    "turquoise": "#40e0d0", "skyblue": "#87ceeb", "steelblue": "#4682b4",
    "royalblue": "#4169e1", "darkblue": "#00008b", "darkred": "#8b0000",
    "darkgreen": "#006400", "darkorange": "#ff8c00", "darkgray": "#a9a9a9",
    "darkgrey": "#a9a9a9", "lightgray": "#d3d3d3", "lightgrey": "#d3d3d3",
    "lightblue": "#add8e6", "lightgreen": "#90ee90", "forestgreen": "#228b22",
    "firebrick": "#b22222", "dodgerblue": "#1e90ff", "deepskyblue": "#00bfff",
    "slategray": "#708090", "slategrey": "#708090", "dimgray": "#696969", "dimgrey": "#696969",
    "limegreen": "#32cd32", "seagreen": "#2e8b57", "chocolate": "#d2691e", "tan": "#d2b48c",
    "khaki": "#f0e68c", "beige": "#f5f5dc", "ivory": "#fffff0", "lavender": "#e6e6fa",
    "plum": "#dda0dd", "hotpink": "#ff69b4", "deeppink": "#ff1493", "aqua": "#00ffff",
    "fuchsia": "#ff00ff", "midnightblue": "#191970", "cornflowerblue": "#6495ed",
    "mediumseagreen": "#3cb371", "darkviolet": "#9400d3", "goldenrod": "#daa520",
    "sienna": "#a0522d", "peru": "#cd853f", "wheat": "#f5deb3", "whitesmoke": "#f5f5f5",
    "gainsboro": "#dcdcdc", "darkcyan": "#008b8b", "darkmagenta": "#8b008b",
    "yellowgreen": "#9acd32", "springgreen": "#00ff7f", "lightcoral": "#f08080",
    "indianred": "#cd5c5c", "rebeccapurple": "#663399", "mediumpurple": "#9370db",
}
LINESTYLES = {"-": "-", "--": "--", "-.": "-.", ":": ":", "None": "", " ": "", "": "",
              "solid": "-", "dashed": "--", "dashdot": "-.", "dotted": ":", "none": ""}
_FMT_LINESTYLES = ("-", "--", "-.", ":")
MARKERS = frozenset(".,ov^<>12348spP*hH+xXDd|_")


def _hex(rgb) -> str:
    return "#" + "".join(f"{max(0, min(255, round(float(c) * 255))):02x}" for c in rgb)


def to_hex(color, cycle_index: int | None = None) -> str:
    """A matplotlib colour (a name, 'C3', '#rgb', '#rrggbb', a grey level '0.5', an RGB(A)
    tuple of 0-1 floats) as '#rrggbb'; ValueError as matplotlib's otherwise."""
    if isinstance(color, str):
        c = color.strip()
        low = c.lower()
        if low in BASE_COLORS:
            return BASE_COLORS[low] if len(c) == 1 else CSS4[low]
        if low in CSS4:
            return CSS4[low]
        if low in TABLEAU:
            return TABLEAU[low]
        m = re.fullmatch(r"[Cc](\d+)", c)
        if m and c[0] == "C":
            return CYCLE[int(m.group(1)) % len(CYCLE)]
        if re.fullmatch(r"#[0-9a-fA-F]{6}([0-9a-fA-F]{2})?", c):
            return c[:7].lower()
        if re.fullmatch(r"#[0-9a-fA-F]{3,4}", c):
            return "#" + "".join(ch * 2 for ch in c[1:4]).lower()
        try:
            grey = float(c)
        except ValueError:
            grey = None
        if grey is not None and 0 <= grey <= 1:
            return _hex((grey, grey, grey))
        raise ValueError(f"{color!r} is not a valid color value.")
    if isinstance(color, (tuple, list)) and len(color) in (3, 4) and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in color):
        if all(0 <= float(v) <= 1 for v in color):
            return _hex(color[:3])
        raise ValueError("RGBA values should be within 0-1 range")
    raise ValueError(f"{color!r} is not a valid color value.")


def is_color(text: str) -> bool:
    try:
        to_hex(text)
    except ValueError:
        return False
    return True


def parse_fmt(fmt: str) -> tuple[str | None, str | None, str | None]:
    """``plot``'s format string '[marker][line][color]' as (linestyle, marker, color) — matplotlib's
    ``_process_plot_format``: a whole colour spec is a colour; a marker without a line style means
    no line ('ro'), a line style without a marker no marker; errors as matplotlib's."""
    if fmt not in ("0", "1") and is_color(fmt):
        return None, None, to_hex(fmt)
    linestyle = marker = color = None
    i = 0
    while i < len(fmt):
        c = fmt[i]
        if fmt[i:i + 2] in _FMT_LINESTYLES:
            if linestyle is not None:
                raise ValueError(f"{fmt!r} is not a valid format string (two linestyle symbols)")
            linestyle = fmt[i:i + 2]
            i += 2
        elif c in _FMT_LINESTYLES:
            if linestyle is not None:
                raise ValueError(f"{fmt!r} is not a valid format string (two linestyle symbols)")
            linestyle = c
            i += 1
        elif c in MARKERS:
            if marker is not None:
                raise ValueError(f"{fmt!r} is not a valid format string (two marker symbols)")
            marker = c
            i += 1
        elif c in BASE_COLORS:
            if color is not None:
                raise ValueError(f"{fmt!r} is not a valid format string (two color symbols)")
            color = BASE_COLORS[c]
            i += 1
        elif c == "C":
            m = re.match(r"C\d+", fmt[i:])
            if not m:
                raise ValueError(
                    f"{fmt!r} is not a valid format string ('C' must be followed by a number)")
            color = to_hex(m.group(0))
            i += len(m.group(0))
        else:
            raise ValueError(f"{fmt!r} is not a valid format string (unrecognized character "
                             f"{c!r})")
    if linestyle is None and marker is None:
        linestyle = "-"
    return (linestyle if linestyle is not None else ""), (marker if marker is not None else ""), \
        color


def linestyle_of(value) -> str:
    if value is None:
        return "-"
    if isinstance(value, str) and value in LINESTYLES:
        return LINESTYLES[value]
    raise ValueError(f"{value!r} is not a valid value for ls; supported values are "
                     "'-', '--', '-.', ':', 'None', ' ', '', 'solid', 'dashed', 'dashdot', "
                     "'dotted'")


def marker_of(value) -> str:
    if value is None or value in ("None", "none", "", " "):
        return ""
    if isinstance(value, str) and (value in MARKERS or value in ("8",)):
        return value
    raise ValueError(f"Unrecognized marker style {value!r}")
