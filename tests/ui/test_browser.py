"""End to end in a real browser: the real Streamlit server, Debian's chromium driven by Playwright.

Skips (with the reason) where chromium or Playwright is missing; with ``CTLAB_REQUIRE_BROWSER=1``
(set by ``.ci/run``) a missing browser is a failure instead.
"""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path

import pytest

from labcore.classroom.lesson import LESSON
from labcore.classroom.mystery import encode, make_puzzle
from labcore.config import PAGE_URLS, PAGES
from tests.ui.real_parts import require_real_parts
from ui.serve import CHROMIUM, CHROMIUM_ARGS, running_lab

ROOT = Path(__file__).resolve().parents[2]


def heading(page: str) -> str:
    """The title a page draws (its ``st.title`` call), which the browser waits for."""
    module = ast.parse((ROOT / "app_pages" / f"{page}.py").read_text())
    return next(
        node.args[0].value
        for node in ast.walk(module)
        if isinstance(node, ast.Call)
        and getattr(node.func, "attr", None) == "title"
        and node.args
        and isinstance(node.args[0], ast.Constant)
    )


LESSON_TITLE = heading("lesson")
VIEWS = [
    *((PAGE_URLS[p.name], heading(p.name)) for p in PAGES),
    (f"mystery?code={encode(make_puzzle('wagering', 'zero'))}", heading("mystery")),
    (f"mystery?code={encode(make_puzzle('dual', 'k1'))}", heading("mystery")),
]
"""Every page of the navigation (:data:`labcore.config.PAGES`), and a student's puzzle of either
task. The Lesson's other steps are walked with a class running, at both widths, by
``test_a_running_class_lays_out_for_the_teacher_and_the_students``."""


def nav_titles() -> list[str]:
    """The pages' titles in the navigation."""
    return [p.title for p in PAGES]


@pytest.fixture(scope="module")
def browser():
    require_real_parts()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def lab_server(tmp_path_factory):
    """One lab server for this module's tests that need no fresh one (each start costs a cold
    import and cold caches; the first test below keeps its own, fresh, server): its address and
    its class store."""
    require_real_parts()
    classes = tmp_path_factory.mktemp("classes") / "class.sqlite"
    with running_lab(env={"CTLAB_CLASS_DB": str(classes)}) as url:
        yield url, classes


@pytest.fixture(scope="module")
def lab_url(lab_server):
    return lab_server[0]


@pytest.fixture
def classes(lab_server):
    """The module server's class store, emptied after the test: while a class is live every
    other browser is its student (docs/classroom.md), so no class outlives the test that
    started it."""
    import sqlite3

    yield lab_server[1]
    if lab_server[1].exists():
        with sqlite3.connect(lab_server[1]) as con:
            tables = [
                t for (t,) in con.execute("SELECT name FROM sqlite_master WHERE type='table'")
            ]
            for table in tables:
                con.execute(f"DELETE FROM {table}")


APP_IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
"""The app once its script's run has ended (Streamlit marks its root with the run's state)."""


AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
"""axe-core, pinned in package.json / package-lock.json (``make test`` runs ``npm ci`` once)."""
AXE_RUN = """async (within) => {
  const found = await axe.run(within ? {include: [[within]]} : document,
                              {resultTypes: ['violations']});
  return found.violations
    .filter(v => v.impact === 'serious' || v.impact === 'critical')
    .flatMap(v => v.nodes.map(n => [v.id, n.target.join(' '), n.html.slice(0, 160)]));
}"""
"""axe-core's serious and critical violations on the page as it stands, or within one element
(a CSS selector): [rule, selector, html]."""
AXE_EXCLUDED: dict[tuple[str, str], str] = {}
"""(rule, a selector's part) of a violation in Streamlit's own markup that no configuration, CSS
or label of the lab's can fix, each with the reason; every other serious or critical violation
fails the test."""


KEYBOARD_JS = """() => {
  const reachable = e => e.tabIndex >= 0 && !e.disabled;
  const controls = 'button, a[href], input, select, textarea, summary, [role="button"], ' +
                   '[role="slider"], [role="combobox"]';
  return [...document.querySelectorAll(controls)]
    .filter(e => e.offsetParent !== null && !e.disabled)
    .filter(e => e.getAttribute('aria-disabled') !== 'true' && e.tabIndex < 0)
    .filter(e => !e.closest('[role="radiogroup"], [role="tablist"]'))
    .filter(e => {  // a widget the keyboard reaches by another of its parts
      const widget = e.closest('[data-testid="stElementContainer"]');
      return !(widget && [...widget.querySelectorAll(controls)].some(reachable));
    })
    .map(e => `${e.tagName.toLowerCase()} ${(e.innerText || e.getAttribute('aria-label') || '')
      .trim().slice(0, 40)}: not reachable by the keyboard`);
}"""
"""Visible controls the Tab key never reaches. A radio group or a row of tabs is one stop (its
items are reached with the arrow keys), and so is a widget whose own input the keyboard reaches:
Streamlit's select boxes open from their input (their "Open" arrow is for the mouse), a number
input steps with the arrow keys (its + and - buttons), a multiselect's chips go with Backspace
(their "Remove" crosses), a file uploader's hidden input opens from its "Browse files" button."""


def _axe_path() -> Path:
    if not AXE.is_file():
        message = "axe-core is not installed: run `npm ci` (make test does)"
        if os.environ.get("CTLAB_REQUIRE_BROWSER") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return AXE


def axe_problems(page, where: str, within: str | None = None) -> list[str]:
    """axe-core's serious and critical violations on ``page`` as it stands (or within the element
    ``within`` selects), less the excluded, and the controls the keyboard cannot reach
    (:data:`KEYBOARD_JS`)."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(_axe_path()))
    return [
        f"{where}: axe {rule} at {target}: {html}"
        for rule, target, html in page.evaluate(AXE_RUN, within)
        if not any(r == rule and part in target for r, part in AXE_EXCLUDED)
    ] + [f"{where}: {p}" for p in page.evaluate(KEYBOARD_JS)]


def _metric_value(page, label: str) -> str:
    metric = page.locator('[data-testid="stMetric"]').filter(has_text=label).first
    return metric.locator('[data-testid="stMetricValue"]').inner_text()


@pytest.mark.browser
def test_a_shared_link_on_a_fresh_server_and_the_self_model_switch(browser, tmp_path):
    with running_lab() as url:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        # A shared link must work as the very first request to a fresh server (a `pages/`
        # folder with scripts at its top level would put Streamlit in its legacy mode then).
        page.goto(f"{url}/workspace?agent=b1&seed=0&capacity=2")
        page.get_by_role("heading", name="Workspace — Global Workspace Theory").first.wait_for(
            timeout=90_000
        )
        nav = page.locator('[data-testid="stSidebarNav"]').inner_text()
        shown = nav_titles()[:3]  # the first pages (the menu folds its tail into "View N more")
        assert all(t in nav for t in shown) and "\napp\n" not in f"\n{nav}\n"
        slider = page.locator('[data-testid="stSlider"]').filter(has_text="Workspace slots").first
        slider.wait_for(timeout=60_000)
        assert "2 (scale 0.5)" in slider.inner_text()  # the link's capacity reached the control
        # (every page opening without an exception, at two widths: the layout test below)
        page.goto(f"{url}/metacognition?agent=b2_ws&seed=0&self_model_mode=on")
        page.locator('[data-testid="stMetric"]').filter(has_text="Type-2 AUROC").first.wait_for(
            timeout=90_000
        )
        intact = _metric_value(page, "Type-2 AUROC")
        accuracy = _metric_value(page, "Task accuracy")
        assert intact != "0.50"
        page.get_by_role("radiogroup", name="Self-model").get_by_role(
            "radio", name="zeroed", exact=True
        ).click()
        page.wait_for_function(
            """() => [...document.querySelectorAll('[data-testid="stMetric"]')]
                 .some(m => m.innerText.includes('Type-2 AUROC')
                   && m.innerText.includes('0.50'))""",
            timeout=60_000,
        )
        assert _metric_value(page, "Task accuracy") == accuracy  # doing survives, knowing goes
        assert re.search(r"self_model_mode=zero", page.url)  # the view is a shareable link
        shot = tmp_path / "metacognition_zeroed.png"
        page.screenshot(path=str(shot), full_page=True)
        assert shot.stat().st_size > 20_000
        page.close()


def _settled_url(page, *, stable_s: float = 2.0, timeout_s: float = 120.0) -> str:
    """The page's URL once the app has been idle, with that URL, for ``stable_s`` seconds (every
    queued rerun done: a rerun in flight marks the app running)."""
    import time

    start = last_change = time.monotonic()
    url = page.url
    while time.monotonic() - start < timeout_s:
        page.wait_for_timeout(250)
        if page.url != url or not page.locator(APP_IDLE).count():
            url, last_change = page.url, time.monotonic()
        elif time.monotonic() - last_change >= stable_s:
            return url
    return url


@pytest.mark.browser
def test_rapid_control_changes_end_on_the_last_input(browser, lab_url):
    """20 fast changes (no waiting between them) must end on the last one, while the
    views are computed and once they are cached.

    The self-model control is clicked; the slider's input is detached and re-created by some
    reruns, which makes key presses on it flaky in Playwright; it is only checked to agree with
    the URL. Under a loaded machine the first round computes three new views, hence the long wait.
    The page must raise no error: under load, references to cached messages from superseded
    fragment runs made Streamlit's page fail and go blank (see .streamlit/config.toml).
    """
    modes = {"on": "on", "zeroed": "zero", "noise": "noise", "shuffled": "permute"}
    names = list(modes)
    url = lab_url
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page_errors: list[str] = []
    page.on("pageerror", lambda error: page_errors.append(str(error)))
    group = page.get_by_role("radiogroup", name="Self-model")
    slider = page.locator('[data-testid="stSlider"]').filter(has_text="Workspace slots")
    for round_ in range(2):  # one capacity: round 0 computes new views, round 1 reads them cached
        page.goto(f"{url}/metacognition?agent=b2_ws&seed=0&self_model_mode=on&capacity=4")
        page.locator('[data-testid="stMetric"]').filter(has_text="Type-2 AUROC").first.wait_for(
            timeout=90_000
        )
        last = names[3 - round_]  # the 20th click is the only one on this mode: seeing it means
        others = [m for m in names if m != last]  # the last input arrived, not an earlier one
        plan = [others[(i + round_) % 3] for i in range(19)] + [last]
        for i, name in enumerate(plan):  # under load a rerun can move the buttons: clicks wait
            try:
                group.get_by_role("radio", name=name, exact=True).click(timeout=120_000)
            except Exception:
                assert not page_errors, f"round {round_}, click {i}: the page failed: {page_errors}"
                raise
        mode, expected = last, f"self_model_mode={modes[last]}&capacity="
        try:  # the runs catch up with the clicks, however slowly under load
            page.wait_for_function(
                f"() => window.location.search.includes({expected!r})", timeout=240_000
            )
        except Exception:
            shown = group.locator('[aria-checked="true"]').inner_text().strip()
            pytest.fail(
                f"round {round_}: the last input ({mode!r}) never arrived; the "
                f"view shows {page.url} "
                f"and the control {shown!r}"
            )
        settled = _settled_url(page)  # and nothing older comes back after it
        assert expected in settled, (
            f"round {round_}: the view went back to {settled} after {mode!r}"
        )
        assert group.locator('[aria-checked="true"]').inner_text().strip() == mode
        # The URL describes what the controls show (under load a click can land on the slider
        # when the layout shifts, so its value is compared with the URL, not with the plan).
        shown = slider.locator('input[type="range"]').input_value()
        assert page.url.endswith(f"capacity={shown}"), (page.url, shown)
        assert page.locator('[data-testid="stException"]').count() == 0
        assert not page_errors, page_errors
    page.close()


@pytest.mark.browser
def test_back_from_a_lesson_view_is_one_press(browser, lab_url):
    """The link "Open this view", then the browser's Back, returns to the lesson step."""
    url = lab_url
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    for page_name, title in (
        ("workspace", "Workspace — Global Workspace Theory"),
        ("robustness", "Robustness — triangulation"),
    ):
        n = next(i for i, s in enumerate(LESSON, 1) if s.page == page_name)
        page.goto(f"{url}/lesson?step={n}")
        page.get_by_role("heading", name="Lesson: three dissociations").first.wait_for(
            timeout=90_000
        )
        page.wait_for_load_state("networkidle")
        page.get_by_role("link", name="Open this view").click()
        page.get_by_role("heading", name=title).first.wait_for(timeout=90_000)
        page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached", timeout=90_000)
        page.wait_for_timeout(1500)  # a rewrite of the URL would land now
        page.go_back()
        page.get_by_role("heading", name="Lesson: three dissociations").first.wait_for(
            timeout=30_000
        )
        assert page.url.endswith(f"/lesson?step={n}")
        page.get_by_role("heading", name=f"{n}. {LESSON[n - 1].title}").first.wait_for(
            timeout=30_000
        )
    page.close()


TOP_TITLES_JS = """(minPanel) => {
  const found = [];
  const hit = (a, b) => a.left < b.right - 2 && b.left < a.right - 2
                        && a.top < b.bottom - 2 && b.top < a.bottom - 2;
  document.querySelectorAll('.js-plotly-plot').forEach(plot => {
    if (plot.offsetParent === null) return;  // in a closed expander or another tab
    const frame = plot.getBoundingClientRect();
    const panels = [...plot.querySelectorAll('.nsewdrag')].map(r => r.getBoundingClientRect());
    if (!panels.length) return;
    const inside = b => panels.some(p => hit(b, p));
    const boxes = [...plot.querySelectorAll('g.annotation')]  // titles: outside every panel
      .map(a => [a.textContent, a.getBoundingClientRect()])
      .filter(([, b]) => b.width > 0 && !inside(b));
    const notes = [...plot.querySelectorAll('.gtitle, .gtitle-subtitle, .g-gtitle text')]
      .map(a => [a.textContent, a.getBoundingClientRect()]).filter(([t, b]) => t && b.width > 0);
    [...boxes, ...notes].forEach(([t, b]) => {
      if (b.left < frame.left - 2 || b.right > frame.right + 2)
        found.push(`${t}: outside the figure`);
    });
    for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
      const [s, a] = boxes[i], [t, b] = boxes[j];
      if (hit(a, b)) found.push(`${s} overlaps ${t}`);
    }
    const bar = plot.querySelector('.modebar');  // the toolbar (shown on hover or a tap)
    if (bar) {
      const b = bar.getBoundingClientRect();
      boxes.forEach(([t, a]) => {
        if (b.width > 0 && hit(a, b)) found.push(`the toolbar covers ${t}`);
      });
    }
    // an axis title is beside its own panel, never over another panel's data
    plot.querySelectorAll('[class^="g-x"][class$="title"], [class^="g-y"][class$="title"]')
      .forEach(g => {
        const b = g.getBoundingClientRect();
        if (b.width > 0 && inside(b)) found.push(`axis title ${g.textContent} over a panel`);
      });
    panels.forEach((p, k) => {
      if (p.width < minPanel || p.height < minPanel / 2)
        found.push(`a panel ${Math.round(p.width)}x${Math.round(p.height)} px (${k + 1})`);
    });
  });
  return found;
}"""
"""Layout faults of every visible chart: panel titles over each other, off the figure or under the
toolbar; a title or note cut at the figure's edge; an axis title over a panel; a panel narrower
than ``minPanel`` px (or lower than half of it: a class's votes are three bars 81 px high)."""
MIN_PANEL_PX = 120
"""The narrowest panel a reader can read (a 100 px ROC curve on a phone is not)."""


FIGURES_DRAWN_JS = """() => [...document.querySelectorAll('[data-testid="stPlotlyChart"]')]
  .filter(chart => chart.offsetParent !== null)
  .every(chart => chart.querySelector('.main-svg'))"""
"""Is every visible chart drawn? (Plotly draws after the run ends.)"""


SIDEBAR = '[data-testid="stSidebar"]'
"""The sidebar: on a phone it is closed, so axe-core sees it at the projector's width only."""
OPEN_TAB = '[data-testid="stTabs"] [role="tabpanel"]:not([hidden])'
"""The open tab's panel: what a click on a tab shows that the page's first check did not see."""


def _fits(page, width: int) -> list[str]:
    """Nothing wider than the screen; on a phone, every visible table shows at least three of its
    columns."""
    found = []
    wide = page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollWidth")
    if wide > width + 2:
        found.append(f"the page is {wide} px wide")
    if width >= 800:
        return found
    frames = page.locator('[data-testid="stDataFrame"]')
    for i in range(frames.count()):
        frame = frames.nth(i)
        if not frame.is_visible():
            continue  # in a closed expander or another tab
        frame.scroll_into_view_if_needed()
        frame.locator("th").first.wait_for(state="attached", timeout=30_000)
        heads = frame.locator("th").all_inner_texts()
        total = int(frame.locator("table").first.get_attribute("aria-colcount") or 0)
        if len(heads) < min(3, total):
            found.append(f"table {i} shows {heads} of {total} columns")
    return found


def _settled(page, title: str) -> None:
    page.get_by_role("heading", name=title).first.wait_for(timeout=120_000)
    page.wait_for_selector(APP_IDLE, timeout=240_000)
    page.wait_for_function(FIGURES_DRAWN_JS, timeout=60_000)
    page.wait_for_timeout(300)  # the titles' own layout pass


@pytest.mark.browser
@pytest.mark.parametrize("width", [360, 1400])
def test_every_page_lays_out_on_a_phone_and_a_projector(browser, lab_url, width):
    """The phone is 360 px wide, the narrowest in common use (at 360 px, 14 px panel titles of three
    figures can overlap where 390 px show none). It catches two-panel titles overlapping, tables
    showing one column, a 100 px ROC panel, the toolbar over a histogram's title, an axis title
    over the next panel's points, and the lab failing people who cannot see colours, use a mouse,
    or see the screen.

    On every page and view (:data:`VIEWS`), in every tab: no exception, no error in the page's own
    script, no layout fault of a chart (:data:`TOP_TITLES_JS`), nothing wider than the screen, no
    serious or critical violation axe-core finds (WCAG 2.1 AA: contrast, names, labels, ARIA,
    keyboard access); on the phone every table shows at least three of its columns. axe-core
    checks the page and each tab at the phone's width; at the projector's it checks what the
    phone hides, the sidebar (the rest is the same markup, and its rules do not depend on the
    width)."""
    url = lab_url
    phone = width < 800
    page = browser.new_page(viewport={"width": width, "height": 844 if phone else 1000})
    problems = []
    page.on("pageerror", lambda error: problems.append(f"{page.url}: the page failed: {error}"))
    for path, title in VIEWS:
        page.goto(f"{url}/{path}")
        _settled(page, title)
        if page.locator('[data-testid="stException"]').count():
            problems.append(f"/{path}: an exception")
        problems += [f"/{path}: {p}" for p in page.evaluate(TOP_TITLES_JS, MIN_PANEL_PX)]
        problems += axe_problems(page, f"/{path}", within=None if phone else SIDEBAR)
        tabs = page.locator('[data-testid="stTabs"] [role="tab"]')
        for k in range(1, tabs.count()):  # the first tab is open already
            tab = tabs.nth(k)
            tab.click()
            page.wait_for_function(FIGURES_DRAWN_JS, timeout=60_000)
            page.wait_for_timeout(300)
            name = f"/{path}, tab {tab.inner_text().strip()}"
            problems += [f"{name}: {p}" for p in page.evaluate(TOP_TITLES_JS, MIN_PANEL_PX)]
            if phone:
                problems += axe_problems(page, name, within=OPEN_TAB)  # the rest is checked
        problems += [f"/{path}: {p}" for p in _fits(page, width)]
    page.close()
    assert not problems, "\n".join(problems)


@pytest.mark.browser
def test_links_for_students_are_not_the_teachers_loopback_address(browser, lab_url):
    """Served on 127.0.0.1, the share links must not point every student's phone at itself; a link
    to this machine's LAN address, from a server that listens on 127.0.0.1 only, is named as
    such."""
    from ui.share import lan_address

    lan = lan_address()
    url = lab_url  # this server listens on 127.0.0.1 only
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{url}/mystery")
    page.get_by_role("button", name="Random puzzle").click()
    link = page.locator('[data-testid="stCode"]').first
    link.wait_for(timeout=60_000)
    shown = link.inner_text().strip()
    assert "/mystery?code=" in shown
    page.locator('[data-testid="stImage"] img').first.wait_for(timeout=30_000)  # the QR code
    alerts = page.locator('[data-testid="stAlert"]').all_inner_texts()
    if lan:
        assert shown.startswith(f"http://{lan}:{url.rsplit(':', 1)[1]}/mystery?code=")
        assert any("127.0.0.1" in a for a in alerts), alerts  # unreachable, and why
    else:  # no network: the loopback link stays, and the teacher is told so
        assert alerts
    page.close()


@pytest.mark.browser
def test_a_student_opening_the_class_link_sees_no_answer_until_the_reveal(
    browser, lab_url, classes
):
    """The students' link opens the student view, from a fresh
    browser context as a student's phone would: the question and a vote, no answer, key, step
    picker, handout or menu; the answer and the class's votes only after the teacher reveals."""
    from labcore.classroom.lesson import expected_answer
    from labcore.experiments.paper_results import load_results

    step = LESSON[2]
    answer = expected_answer(step, load_results("results/bundled"))
    url = lab_url
    teacher = browser.new_page(viewport={"width": 1366, "height": 800})
    teacher.goto(f"{url}/lesson?step=3")
    teacher.get_by_role("button", name="Start a class").click()
    code = teacher.locator(".class-join-link")
    code.wait_for(timeout=60_000)
    link = code.inner_text().strip()
    assert "/join?class=" in link, link
    link = url + link[link.index("/join") :]  # this server listens on 127.0.0.1 only
    context = browser.new_context(viewport={"width": 390, "height": 844})  # a phone
    student = context.new_page()
    student.goto(link)
    student.get_by_text(step.question[:40]).first.wait_for(timeout=60_000)
    body = student.locator("body").inner_text()
    # the answer's sentence (its first words are a choice's label, which a student sees)
    assert answer.text not in body and step.why[:40] not in body
    for hidden in ("Show answer", "Next step", "Handout for students (HTML)"):
        assert student.get_by_role("button", name=hidden).count() == 0, hidden
    assert student.locator('[data-testid="stSidebarNav"]').count() == 0  # no menu
    student.get_by_text(step.choices[0], exact=False).first.click()
    student.get_by_role("button", name="Send my answer").click()
    student.get_by_role("button", name="Change my answer").wait_for(timeout=30_000)
    teacher.get_by_role("button", name="Show answer").click()
    teacher.get_by_role("button", name="Hide answer").wait_for(timeout=30_000)
    student.get_by_text(step.why[:40]).first.wait_for(timeout=30_000)  # the poll brings it
    student.locator(".js-plotly-plot").first.wait_for(timeout=30_000)  # the class's votes
    assert student.locator('[data-testid="stException"]').count() == 0
    assert teacher.locator('[data-testid="stException"]').count() == 0
    context.close()
    teacher.close()


def _frames(page, into: list[bytes]):
    """Keep every websocket message the server sends ``page`` (what it sent, drawn or not)."""
    page.on(
        "websocket",
        lambda ws: ws.on(
            "framereceived",
            lambda data: into.append(data.encode() if isinstance(data, str) else data),
        ),
    )
    return page


def _cookie(context, name: str) -> str:
    return next((c["value"] for c in context.cookies() if c["name"] == name), "")


@pytest.mark.browser
def test_no_unrevealed_answer_reaches_a_student_and_a_reload_keeps_the_class(
    browser, lab_url, classes
):
    """A student's browser in a running class gets no answer the teacher has not revealed from any
    page or URL: every Lesson step by its URL, the Lesson from the sidebar, the handouts, Mystery
    with and without ``class=``, and another browser of the room; the server sends none of it (its
    websocket messages are searched). The teacher's reload resumes the class from the browser's
    cookie, the revealed step revealed, no key on the projector; the join block reads from the
    back in projector mode, whole; "Open this view" and back keep ``class=``."""
    from labcore.classroom import mystery
    from labcore.classroom.lesson import expected_answer
    from labcore.experiments.paper_results import load_results
    from ui.classroom import JOIN_CODE_REM, JOIN_LINK_REM, STUDENT_COOKIE, TEACHER_COOKIE

    url = lab_url
    teacher_context = browser.new_context(viewport={"width": 1366, "height": 768})
    teacher = teacher_context.new_page()
    teacher.goto(f"{url}/lesson?step=3&projector=1")
    teacher.get_by_role("button", name="Start a class").click()
    teacher.locator(".class-join-link").wait_for(timeout=60_000)
    teacher.get_by_role("button", name="Show answer").click()
    teacher.get_by_role("button", name="Hide answer").wait_for(timeout=30_000)
    teacher.wait_for_selector(APP_IDLE, timeout=60_000)
    code, key = _cookie(teacher_context, TEACHER_COOKIE).split(".")
    puzzle = mystery.make_puzzle("wagering", "zero")
    results = load_results("results/bundled")
    secrets = [key, mystery.conditions("wagering")["zero"]]
    secrets.append(" and ".join(m.label for m in mystery.giveaway(puzzle)))  # the reveal's clue
    for n, step in enumerate(LESSON, 1):
        if n != 3:  # step 3 is revealed: the class may read it
            secrets += [expected_answer(step, results).text, step.why[:60]]
    frames: list[bytes] = []
    problems: list[str] = []

    def check(page, where: str) -> None:
        page.wait_for_selector(APP_IDLE, timeout=120_000)
        shown = page.content()
        problems.extend(f"{where}: {s[:30]}" for s in secrets if s in shown)
        held = ", ".join(
            f'[{kind}"{name}"]'
            for kind, name in (
                ("data-testid=", "stDownloadButton"),
                ("class*=", "st-key-lesson-show"),
                ("class*=", "st-key-mystery-key"),
            )
        )
        if page.locator(held).count() or page.get_by_role("button", name="Reveal").count():
            problems.append(f"{where}: a handout, an answer button or a Reveal")

    student_context = browser.new_context(viewport={"width": 1280, "height": 800})
    student = _frames(student_context.new_page(), frames)
    student.goto(f"{url}/join?class={code}")
    student.get_by_text(LESSON[2].question[:40]).first.wait_for(timeout=60_000)
    student.wait_for_function(f"() => document.cookie.includes('{STUDENT_COOKIE}=')")
    assert _cookie(student_context, STUDENT_COOKIE).startswith(f"{code}.")  # this browser joined
    for n in range(1, len(LESSON) + 1):
        student.goto(f"{url}/lesson?step={n}")
        student.get_by_role("heading", name="Lesson: three dissociations").first.wait_for()
        check(student, f"/lesson?step={n}")
    student.goto(f"{url}/mystery?code={mystery.encode(puzzle)}")  # without class=
    student.locator('[data-testid="stMetric"]').first.wait_for(timeout=120_000)
    check(student, "/mystery?code=")
    nav = student.locator('[data-testid="stSidebarNav"]')
    more = nav.get_by_text(re.compile(r"View \d+ more"))
    if more.count():
        more.click()
    nav.get_by_role("link", name="Lesson").click()  # the sidebar, from a page students are sent to
    student.get_by_role("heading", name="Lesson: three dissociations").first.wait_for()
    check(student, "the sidebar's Lesson")
    student.goto(f"{url}/mystery?made={mystery.encode(puzzle)}")  # a teacher's puzzle URL
    student.get_by_role("heading", name="Mystery agent").first.wait_for()
    check(student, "/mystery?made=")
    other = _frames(browser.new_page(), frames)  # another browser in the room: no cookie, no code
    other.goto(f"{url}/lesson?step=4")
    other.get_by_role("heading", name="Lesson: three dissociations").first.wait_for()
    check(other, "another browser's /lesson?step=4")
    problems += [f"sent: {s[:30]}" for s in secrets if any(s.encode() in f for f in frames)]
    assert not problems, problems
    other.close()
    student_context.close()

    reloaded: list[bytes] = []
    _frames(teacher, reloaded)
    teacher.reload()
    teacher.get_by_role("button", name="Hide answer").wait_for(timeout=60_000)  # still revealed
    teacher.wait_for_selector(APP_IDLE, timeout=60_000)
    assert teacher.locator(".class-join-code").inner_text().strip() == code
    assert teacher.locator('input[type="password"]').count() == 0  # nothing asks for the key
    assert key not in teacher.content() and not any(key.encode() in f for f in reloaded)
    for part, rem in ((".class-join-code", JOIN_CODE_REM), (".class-join-link", JOIN_LINK_REM)):
        size, text, overflow, right = teacher.evaluate(
            """part => { const e = document.querySelector(part);
                         const r = e.getBoundingClientRect();
                         return [parseFloat(getComputedStyle(e).fontSize), e.innerText.trim(),
                                 e.scrollWidth - e.clientWidth, r.right - window.innerWidth]; }""",
            part,
        )
        assert size == 2 * rem * 16, (part, size)  # projector mode doubles the type
        assert overflow <= 0 and right <= 0, (part, overflow, right)  # never cut
    assert text.startswith("http") and text.endswith(f"/join?class={code}"), text  # whole
    teacher.get_by_role("link", name="Open this view").click()
    teacher.get_by_role("heading", name="Metacognition — Higher-Order Theory").first.wait_for(
        timeout=90_000
    )
    teacher.wait_for_selector(APP_IDLE, timeout=90_000)
    teacher.go_back()  # one press: the link carried the projector switch the view keeps
    teacher.get_by_role("button", name="Hide answer").wait_for(timeout=60_000)
    teacher.wait_for_selector(APP_IDLE, timeout=60_000)
    assert f"class={code}" in teacher.url and "/lesson?step=3&" in teacher.url, teacher.url
    teacher_context.close()


@pytest.mark.browser
def test_mystery_started_in_class_order_never_projects_its_condition_and_reveals_in_seconds(
    browser, lab_url, classes
):
    """Start the class, then make the puzzle: the hidden condition is chosen behind a popover and
    is nowhere on the projected page once made; a student diagnosing in the class sees the
    teacher's reveal within seconds, without a reload (the page polls as the student view does)."""
    import time

    from playwright.sync_api import expect

    from labcore.classroom import mystery

    condition = mystery.conditions("wagering")["zero"]
    url = lab_url
    teacher = browser.new_page(viewport={"width": 1366, "height": 768})
    teacher.goto(f"{url}/mystery")
    teacher.get_by_text("Your class", exact=True).click()
    teacher.get_by_role("button", name="Start a class").click()
    link = teacher.locator(".class-join-link")
    link.wait_for(timeout=60_000)
    join = url + link.inner_text().strip()[link.inner_text().index("/join") :]
    # Starting the class reruns the page; a click during that rerun can land on a stale popover.
    teacher.wait_for_selector(APP_IDLE, timeout=60_000)
    teacher.get_by_role("button", name="Choose the hidden condition").click()
    chooser = teacher.locator('[data-testid="stSelectbox"]').filter(has_text="Hidden condition")
    chooser.click()
    teacher.get_by_role("option", name=condition).click()
    # the choice's rerun ends before the puzzle is made (under load a click can outrun it)
    expect(chooser.get_by_role("combobox")).to_have_value(condition, timeout=60_000)
    teacher.wait_for_selector(APP_IDLE, timeout=60_000)
    teacher.get_by_role("button", name="Make this puzzle").click()
    reveal = teacher.get_by_role("button", name="Reveal the answer to the class")
    reveal.wait_for(timeout=60_000)
    teacher.wait_for_selector(APP_IDLE, timeout=60_000)
    assert condition not in teacher.locator("body").inner_text()
    made = mystery.decode(re.search(r"made=(\w+)", teacher.url).group(1))
    assert mystery.condition_of(made) == "zero"

    student = browser.new_page(viewport={"width": 390, "height": 844})  # a phone
    student.goto(join)
    student.get_by_role("link", name="Open what you are asked about").click()
    student.locator('[data-testid="stMetric"]').first.wait_for(timeout=120_000)
    choices = mystery.class_question(made).choices
    student.get_by_text(choices[mystery.class_question(made).lab_choice]).first.click()
    student.get_by_role("button", name="Send my answer").click()
    student.get_by_role("button", name="Change my answer").wait_for(timeout=30_000)
    assert condition not in student.content()
    reveal.click()
    start = time.monotonic()
    student.get_by_text(condition).first.wait_for(timeout=30_000)  # the reveal, no reload
    waited = time.monotonic() - start
    assert waited < 15, waited
    assert student.locator('[data-testid="stException"]').count() == 0
    assert teacher.locator('[data-testid="stException"]').count() == 0
    student.close()
    teacher.close()


@pytest.mark.browser
def test_be_the_agent_loses_no_key_pressed_a_tenth_of_a_second_apart(browser, lab_url):
    """With keys 0.1 s apart a bet can reach a button the run before still disables. A whole session
    played from the keyboard, a side and a bet every 0.1 s, ends with every trial answered; then the
    results view is checked as every page is (layout of its charts, axe-core)."""
    from labcore.humans.session import SESSION_TRIALS, SIDE_KEYS, WAGERS

    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{lab_url}/be_the_agent")
    _settled(page, "Be the agent")
    page.keyboard.press("Enter")  # Start
    page.locator('[data-testid="stImage"] img').first.wait_for(timeout=60_000)
    page.wait_for_selector(APP_IDLE, timeout=60_000)
    problems = axe_problems(page, "/be_the_agent, a trial")
    for i in range(SESSION_TRIALS):
        page.keyboard.press(SIDE_KEYS[i % 2])
        page.wait_for_timeout(100)
        page.keyboard.press(WAGERS[i % len(WAGERS)].shortcut)
        page.wait_for_timeout(100)
    done = page.get_by_text(f"All {SESSION_TRIALS} trials done")
    try:
        done.wait_for(timeout=60_000)
    except Exception:
        shown = page.locator('[data-testid="stProgress"]').first.inner_text()
        pytest.fail(f"{2 * SESSION_TRIALS} keys 0.1 s apart ended on {shown!r}")
    _settled(page, "Be the agent")
    problems += [f"results: {p}" for p in page.evaluate(TOP_TITLES_JS, MIN_PANEL_PX)]
    problems += axe_problems(page, "/be_the_agent, the results")
    assert page.locator('[data-testid="stException"]').count() == 0
    page.close()
    assert not problems, "\n".join(problems)


@pytest.mark.browser
@pytest.mark.parametrize("width", [360, 1400])
def test_a_running_class_lays_out_for_the_teacher_and_the_students(
    browser, lab_url, classes, width
):
    """In a running class, Lesson step 2's "Your class beside the agents" could put its M-ratio
    axis title over the AUROC points. Every step of the teacher's Lesson with a class
    running (the votes, the class's results beside the agents), and the student's view before and
    after a reveal, are checked as every page is (:data:`TOP_TITLES_JS`, axe-core, :func:`_fits`),
    at a phone's width and a projector's."""
    height = 844 if width < 800 else 1000
    teacher = browser.new_page(viewport={"width": width, "height": height})
    teacher.goto(f"{lab_url}/lesson?step=1")
    _settled(teacher, LESSON_TITLE)
    teacher.get_by_role("button", name="Start a class").click()
    code = teacher.locator(".class-join-link").first
    code.wait_for(timeout=60_000)
    link = code.inner_text().strip()
    link = lab_url + link[link.index("/join") :]  # this server listens on 127.0.0.1 only
    problems = []
    for n in range(1, len(LESSON) + 1):
        _settled(teacher, LESSON_TITLE)
        teacher.get_by_role("heading", name=f"{n}. {LESSON[n - 1].title}").first.wait_for(
            timeout=60_000
        )
        if n == 3:  # reveal a vote
            teacher.get_by_role("button", name="Show answer").click()
            teacher.get_by_role("button", name="Hide answer").wait_for(timeout=30_000)
            _settled(teacher, LESSON_TITLE)
        where = f"teacher, step {n}"
        problems += [f"{where}: {p}" for p in teacher.evaluate(TOP_TITLES_JS, MIN_PANEL_PX)]
        problems += axe_problems(teacher, where)
        problems += [f"{where}: {p}" for p in _fits(teacher, width)]
        if n == 3:  # a revealed vote: the student's view with the class's votes
            context = browser.new_context(viewport={"width": width, "height": height})
            student = context.new_page()
            student.goto(link)
            student.get_by_text(LESSON[2].question[:40]).first.wait_for(timeout=60_000)
            student.locator(".js-plotly-plot").first.wait_for(timeout=30_000)
            _settled(student, "Your class")
            problems += [f"student: {p}" for p in student.evaluate(TOP_TITLES_JS, MIN_PANEL_PX)]
            problems += axe_problems(student, "student, a revealed vote")
            problems += [f"student: {p}" for p in _fits(student, width)]
            context.close()
        if n < len(LESSON):
            teacher.get_by_role("button", name="Next step").click()
    assert teacher.locator('[data-testid="stException"]').count() == 0
    teacher.close()
    assert not problems, "\n".join(problems)
