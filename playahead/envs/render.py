"""Drawing boards as text and as images, with numpy only.

Images use a built-in 3x5 pixel font, scaled; no font files or imaging library needed.
"""

from __future__ import annotations

import numpy as np

_FONT_ROWS = {
    "0": ("111", "101", "101", "101", "111"),
    "1": ("010", "110", "010", "010", "111"),
    "2": ("111", "001", "111", "100", "111"),
    "3": ("111", "001", "111", "001", "111"),
    "4": ("101", "101", "111", "001", "001"),
    "5": ("111", "100", "111", "001", "111"),
    "6": ("111", "100", "111", "101", "111"),
    "7": ("111", "001", "010", "010", "010"),
    "8": ("111", "101", "111", "101", "111"),
    "9": ("111", "101", "111", "001", "111"),
    "+": ("000", "010", "111", "010", "000"),
    "-": ("000", "000", "111", "000", "000"),
    "/": ("001", "001", "010", "100", "100"),
    " ": ("000", "000", "000", "000", "000"),
    # the letters of the frames' labels ("SCORE", "NEXT"); S is not the 5
    "C": ("011", "100", "100", "100", "011"),
    "E": ("111", "100", "110", "100", "111"),
    "N": ("101", "111", "111", "101", "101"),
    "O": ("010", "101", "101", "101", "010"),
    "R": ("110", "101", "110", "101", "101"),
    "S": ("011", "100", "010", "001", "110"),
    "T": ("111", "010", "010", "010", "010"),
    "X": ("101", "101", "010", "101", "101"),
}
FONT = {
    ch: np.array([[c == "1" for c in row] for row in rows])
    for ch, rows in _FONT_ROWS.items()
}


def draw_text(img: np.ndarray, text: str, cx: int, cy: int, height: int, color) -> None:
    """Draw ``text`` centred at (cx, cy), glyphs ``height`` pixels tall, in place."""
    scale = max(1, height // 5)
    glyph_w, gap = 3 * scale, scale
    width = len(text) * (glyph_w + gap) - gap
    x0, y0 = cx - width // 2, cy - (5 * scale) // 2
    for k, ch in enumerate(text):
        mask = np.kron(FONT.get(ch, FONT[" "]), np.ones((scale, scale), dtype=bool))
        x = x0 + k * (glyph_w + gap)
        region = img[y0 : y0 + mask.shape[0], x : x + mask.shape[1]]
        region[mask[: region.shape[0], : region.shape[1]]] = color


def tile_grid_image(
    labels: list[list[str]],
    fills: list[list[tuple[int, int, int]]],
    inks: list[list[tuple[int, int, int]]],
    background=(187, 173, 160),
    cell: int = 64,
    margin: int = 8,
    footer: str = "",
    footer_ink=(255, 255, 255),
) -> np.ndarray:
    """uint8[H, W, 3] picture of a grid of labelled tiles (an optional footer line)."""
    rows, cols = len(labels), len(labels[0])
    foot = cell // 2 if footer else 0
    h = rows * cell + (rows + 1) * margin + foot
    w = cols * cell + (cols + 1) * margin
    img = np.empty((h, w, 3), dtype=np.uint8)
    img[:] = background
    for r in range(rows):
        for c in range(cols):
            y = margin + r * (cell + margin)
            x = margin + c * (cell + margin)
            img[y : y + cell, x : x + cell] = fills[r][c]
            text = labels[r][c]
            if text:
                size = cell // 3 if len(text) <= 3 else cell // (len(text) + 1) * 5 // 4
                draw_text(img, text, x + cell // 2, y + cell // 2, size, inks[r][c])
    if footer:
        draw_text(
            img, footer, w // 2, h - foot // 2 - margin // 2, foot // 2, footer_ink
        )
    return img


def ansi_grid(labels: list[list[str]], colors: list[list[str]], width: int = 6) -> str:
    """Text grid; ``colors`` are ANSI SGR codes such as ``"1;37;44"`` (or "")."""
    line = "+" + ("-" * width + "+") * len(labels[0])
    out = [line]
    for row, row_colors in zip(labels, colors, strict=True):
        cells = []
        for text, color in zip(row, row_colors, strict=True):
            body = text.center(width)
            cells.append(f"\x1b[{color}m{body}\x1b[0m" if color and text else body)
        out.append("|" + "|".join(cells) + "|")
        out.append(line)
    return "\n".join(out)
