"""Human-readable frames: the MiniGrid view beside a panel that shows the cue channel.

The agent never sees these (it gets symbolic observations): they show a person when a cue arrives,
what it was, when a mask displaces it and whether a report came out right.
"""

from __future__ import annotations

import numpy as np
from minigrid.core.constants import COLORS
from minigrid.core.world_object import Ball, Box, Door, Goal, Key, Lava, Wall
from minigrid.minigrid_env import MiniGridEnv
from PIL import Image, ImageDraw, ImageFont

from labcore.envs.channels import CONTENT_SLICE, EVENT_INDEX, KIND_SLICE, CueKind
from labcore.envs.labels import (
    PHASE_NAVIGATE,
    PHASE_WAGER,
    PRIMARY_CUE_NAMES,
    SECONDARY_CUE_NAMES,
    STIMULUS_CELL,
    phase_name,
)

PANEL_WIDTH = 260
MIN_HEIGHT = 320
SWATCH = 96
SWATCH_ORIGIN = (20, 62)
"""Top-left corner of the cue swatch in the panel (tests read the cue colour there)."""
BACKGROUND = (245, 245, 245)
INK = (30, 30, 30)
LIT = (255, 190, 0)
CUE_RGB = {**{k: tuple(int(c) for c in v) for k, v in COLORS.items()}, "orange": (255, 140, 0)}


def _font(size: int) -> ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def _object_tile(name: str, size: int) -> np.ndarray:
    obj = {
        "key": Key("yellow"),
        "ball": Ball("blue"),
        "box": Box("purple"),
        "door": Door("green"),
        "goal": Goal(),
        "lava": Lava(),
        "wall": Wall("grey"),
    }[name]
    tile = np.zeros((size, size, 3), np.uint8)
    obj.render(tile)
    return tile


def _mask_texture(size: int, seed: int) -> np.ndarray:
    # A fixed-per-step grey noise patch: visibly "not a cue".
    rng = np.random.default_rng(seed)
    coarse = rng.integers(60, 200, size=(8, 8), dtype=np.uint8)
    return np.repeat(np.repeat(coarse, size // 8, 0), size // 8, 1)[..., None].repeat(3, axis=2)


def _flag(draw: ImageDraw.ImageDraw, xy: tuple[int, int], text: str, on: bool) -> None:
    x, y = xy
    draw.rounded_rectangle(
        (x, y, x + 220, y + 26),
        radius=6,
        fill=LIT if on else (225, 225, 225),
        outline=INK if on else (190, 190, 190),
    )
    draw.text((x + 10, y + 5), text, fill=INK if on else (150, 150, 150), font=_font(14))


def _panel(height: int, title: str) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    """The side panel with its title and the empty cue swatch."""
    panel = Image.new("RGB", (PANEL_WIDTH, max(MIN_HEIGHT, height)), BACKGROUND)
    draw = ImageDraw.Draw(panel)
    draw.text((20, 10), title, fill=INK, font=_font(16))
    draw.text((20, 38), "cue channel", fill=(90, 90, 90), font=_font(13))
    x0, y0 = SWATCH_ORIGIN
    draw.rectangle((x0 - 2, y0 - 2, x0 + SWATCH + 1, y0 + SWATCH + 1), outline=(160, 160, 160))
    return panel, draw


def _compose(grid_img: np.ndarray, panel: Image.Image) -> np.ndarray:
    height = max(grid_img.shape[0], panel.height)
    canvas = np.full((height, grid_img.shape[1] + panel.width, 3), BACKGROUND, np.uint8)
    top = (height - grid_img.shape[0]) // 2
    canvas[top : top + grid_img.shape[0], : grid_img.shape[1]] = grid_img
    canvas[: panel.height, grid_img.shape[1] :] = np.asarray(panel)
    return canvas


def compose_dual_frame(env: MiniGridEnv, grid_img: np.ndarray) -> np.ndarray:
    """Frame of the dual task (``env``: a DualTaskEnv): room, then the cue channel, report flags
    and last outcome."""
    cfg, t = env.config, env.step_count
    title = f"step {min(t, cfg.n_steps)} / {cfg.n_steps}   {phase_name(cfg, t)}"
    panel, draw = _panel(grid_img.shape[0], title)
    x0, y0 = SWATCH_ORIGIN
    label = "(nothing)"
    if t < cfg.n_steps and env.schedule.cue[0, t, EVENT_INDEX] > 0:
        kind = int(np.argmax(env.schedule.cue[0, t, KIND_SLICE]))
        value = int(np.argmax(env.schedule.cue[0, t, CONTENT_SLICE]))
        if kind == CueKind.CUE_A:
            name = SECONDARY_CUE_NAMES[value]
            draw.rectangle((x0, y0, x0 + SWATCH - 1, y0 + SWATCH - 1), fill=CUE_RGB[name])
            label = f"COLOUR cue: {name}"
        elif kind == CueKind.CUE_B:
            name = PRIMARY_CUE_NAMES[value]
            panel.paste(Image.fromarray(_object_tile(name, SWATCH)), (x0, y0))
            label = f"OBJECT cue: {name}"
        else:
            panel.paste(Image.fromarray(_mask_texture(SWATCH, seed=t)), (x0, y0))
            label = "MASK (distractor)"
    draw.text(
        (x0 + SWATCH + 12, y0 + SWATCH // 2 - 20),
        "\n".join(label.split(": ")),
        fill=INK,
        font=_font(14),
    )
    _flag(draw, (20, 176), "report the colour", t == cfg.report_secondary_step)
    _flag(draw, (20, 208), "report the object", t == cfg.report_primary_step)
    # The frame shows the room before step t's action, so what the agent said is the previous
    # step's, named as such, and only after a report (a movement in the delay is not an answer).
    reported = {
        cfg.report_secondary_step: ("colour", SECONDARY_CUE_NAMES),
        cfg.report_primary_step: ("object", PRIMARY_CUE_NAMES),
    }.get(t - 1)
    if env.last_action is not None and reported is not None:
        what, names = reported
        said = (
            names[env.last_action] if env.last_action < len(names) else f"action {env.last_action}"
        )
        draw.text((20, 246), f"step {t - 1}: reported the {what}: {said}", fill=INK, font=_font(14))
        if env.last_report_correct is not None:
            ok = env.last_report_correct
            draw.text(
                (20, 270),
                "report correct" if ok else "report wrong",
                fill=(0, 140, 0) if ok else (200, 0, 0),
                font=_font(16),
            )
    return _compose(grid_img, panel)


def compose_wagering_frame(env: MiniGridEnv, grid_img: np.ndarray, tile_size: int) -> np.ndarray:
    """Frame of the wagering task (``env``: a WageringEnv): the flash drawn on the stimulus zone,
    evidence and wager."""
    state, trials = env.state, env.trials
    t = int(state.t[0])
    flashing = int(state.cue_step[0]) == t and state.phase[0] == PHASE_NAVIGATE
    img = grid_img.copy()
    zone_rgb = np.array(CUE_RGB["blue" if trials.stimulus[0] == 0 else "red"], float)
    if flashing:
        # A ring around the stimulus zone (the agent stays visible inside it); opacity follows
        # salience and the speckle stands for the noise the agent also receives.
        x, y = STIMULUS_CELL
        ys, xs = (
            slice(y * tile_size, (y + 1) * tile_size),
            slice(x * tile_size, (x + 1) * tile_size),
        )
        tile = img[ys, xs].astype(float)
        ring = np.ones(tile.shape[:2], bool)
        border = max(3, tile_size // 6)
        ring[border:-border, border:-border] = False
        alpha = 0.15 + 0.85 * float(trials.salience[0])
        speckle = np.random.default_rng(t).normal(0, 40, tile.shape[:2])
        tile[ring] = (1 - alpha) * tile[ring] + alpha * zone_rgb + speckle[ring, None]
        img[ys, xs] = np.clip(tile, 0, 255)
    panel, draw = _panel(img.shape[0], f"step {t}   {env.phase}")
    x0, y0 = SWATCH_ORIGIN
    if flashing:
        cue = env._observation()["cue"][CONTENT_SLICE][:2]
        draw.rectangle(
            (x0, y0, x0 + SWATCH - 1, y0 + SWATCH - 1), fill=tuple(int(c) for c in zone_rgb)
        )
        side = "left (blue)" if trials.stimulus[0] == 0 else "right (red)"
        draw.text(
            (x0 + SWATCH + 12, y0 + 4),
            f"FLASH\n{side}\nsalience {trials.salience[0]:.2f}",
            fill=INK,
            font=_font(14),
        )
        # Signed bars around a zero line: noise can push evidence below zero.
        zero = 185
        for k, (name, value) in enumerate(zip(("left", "right"), cue, strict=True)):
            yy = y0 + SWATCH + 14 + 22 * k
            draw.text((20, yy), f"{name} evidence {value:+.2f}", fill=INK, font=_font(13))
            end = zero + int(np.clip(value, -1.5, 1.5) / 1.5 * 60)
            draw.rectangle(
                (min(zero, end), yy + 2, max(zero, end), yy + 14),
                fill=CUE_RGB["blue" if k == 0 else "red"],
            )
            draw.line((zero, yy, zero, yy + 16), fill=INK)
    else:
        draw.text((x0 + SWATCH + 12, y0 + SWATCH // 2 - 10), "(nothing)", fill=INK, font=_font(14))
    _flag(draw, (20, 222), "wager: bet or opt out?", bool(state.phase[0] == PHASE_WAGER))
    decision = int(state.decision[0])
    if decision >= 0:
        ok = decision == int(trials.stimulus[0])
        draw.text(
            (20, 256),
            f"went {'left' if decision == 0 else 'right'}: {'correct' if ok else 'wrong'}",
            fill=(0, 140, 0) if ok else (200, 0, 0),
            font=_font(16),
        )
    if int(state.bet[0]) >= 0:
        draw.text((20, 282), "bet" if state.bet[0] == 1 else "opted out", fill=INK, font=_font(16))
    return _compose(img, panel)
