"""Control-to-figure latency in a real browser (issue: the lab in the browser).

Run alone: ``.venv/bin/python -m bench.bench_browser`` (``--cold``: the first-time paths).
Starts the real lab, drives Debian's
chromium with Playwright, changes a control and measures the time until the dependent metric
shows its new value. The first change of a setting computes (cache miss); changing back to a
setting seen before is served from ``st.cache_data`` (cache hit). Median of 5 rounds each.
"""

from __future__ import annotations

import statistics
import time

from playwright.sync_api import sync_playwright

from ui.serve import CHROMIUM, CHROMIUM_ARGS, running_lab

METRIC_JS = """([label, old]) => {
  const m = [...document.querySelectorAll('[data-testid="stMetric"]')]
    .find(e => e.innerText.includes(label));
  if (!m) return false;
  const v = m.querySelector('[data-testid="stMetricValue"]').innerText;
  return v !== old;
}"""


def metric(page, label: str) -> str:
    m = page.locator('[data-testid="stMetric"]').filter(has_text=label).first
    return m.locator('[data-testid="stMetricValue"]').inner_text()


def timed_change(page, action, label: str) -> float:
    old = metric(page, label)
    start = time.perf_counter()
    action()
    page.wait_for_function(METRIC_JS, arg=[label, old], timeout=60_000)
    # The figures are drawn in the same script run as the metric; wait for the run to end.
    page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached", timeout=60_000)
    return time.perf_counter() - start


def timed_load(page, url: str, label: str) -> float:
    """Seconds from navigating to ``url`` until the metric ``label`` shows and the run has ended."""
    start = time.perf_counter()
    page.goto(url)
    page.locator('[data-testid="stMetric"]').filter(has_text=label).first.wait_for(timeout=240_000)
    page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached", timeout=240_000)
    return time.perf_counter() - start


def cold_paths() -> None:
    """The slow paths, each the first time in a fresh server (nothing cached)."""
    with running_lab() as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        start = time.perf_counter()
        page.goto(url)
        page.get_by_role("heading", name="Consciousness-Theories Ablation Lab").first.wait_for(
            timeout=240_000
        )
        print(f"first page of a fresh server (Home): {time.perf_counter() - start:.1f} s")
        robust = f"{url}/robustness?agent=b1&seed=0&noise=0.3&noise_mode=stored"
        print(
            f"Robustness, cold: {timed_load(page, robust, 'Report accuracy with this noise'):.1f} s"
        )
        for normalisation in ("lz76", "casali"):
            took = timed_load(
                page, f"{robust}&normalisation={normalisation}", "Report accuracy with this noise"
            )
            print(f"Robustness, PCI normalisation {normalisation} (first time): {took:.1f} s")
        took = timed_load(
            page,
            f"{url}/workspace?agent=b1&seed=0&capacity=4&soa=5&masks=4",
            "Conjunction accuracy",
        )
        print(f"Workspace with a new masking onset (first time): {took:.1f} s")
        for seed in (0, 1):
            reward = f"{url}/reward?agent=reward_wager&seed={seed}&self_model_mode=on"
            print(
                f"From reward alone, seed {seed}, cold: "
                f"{timed_load(page, reward, 'Type-2 AUROC'):.1f} s"
            )
            # The browser draws the page's figures after the script run ends; a click before that
            # waits for the drawing. Seed 0 clicks at once, seed 1 after the page has drawn (4 s).
            if seed:
                page.wait_for_timeout(4000)
            group = page.get_by_role("radiogroup", name="Self-model (both agents)")
            modes = ("zeroed", "on", "noise", "shuffled", "zeroed", "on")
            took = [
                timed_change(
                    page,
                    lambda m=m, g=group: g.get_by_role("radio", name=m, exact=True).click(),
                    "Type-2 AUROC",
                )
                for m in modes
            ]
            print(
                f"From reward alone, seed {seed}, self-model switch "
                f"({', '.join(modes)}; the first four compute, "
                f"the last two are cached): {', '.join(f'{t:.2f}' for t in took)} s"
            )
        browser.close()


def main() -> None:
    with running_lab() as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})

        page.goto(f"{url}/metacognition?agent=b2_ws&seed=0&self_model_mode=on")
        page.locator('[data-testid="stMetric"]').filter(has_text="Type-2 AUROC").first.wait_for(
            timeout=120_000
        )
        group = page.get_by_role("radiogroup", name="Self-model")
        miss, hit = [], []
        for seed in range(5):
            if seed:
                page.goto(f"{url}/metacognition?agent=b2_ws&seed={seed}&self_model_mode=on")
                page.locator('[data-testid="stMetric"]').filter(
                    has_text="Type-2 AUROC"
                ).first.wait_for(timeout=120_000)
                group = page.get_by_role("radiogroup", name="Self-model")
            miss.append(
                timed_change(
                    page,
                    lambda g=group: g.get_by_role("radio", name="zeroed", exact=True).click(),
                    "Type-2 AUROC",
                )
            )
            hit.append(
                timed_change(
                    page,
                    lambda g=group: g.get_by_role("radio", name="on", exact=True).click(),
                    "Type-2 AUROC",
                )
            )
        print(
            "metacognition, self-model switch: first change "
            f"{statistics.median(miss):.2f} s median "
            f"(max {max(miss):.2f}); back to a seen setting "
            f"{statistics.median(hit):.2f} s (max {max(hit):.2f})"
        )

        page.goto(f"{url}/workspace?agent=b1&seed=0&capacity=4")
        page.locator('[data-testid="stMetric"]').filter(
            has_text="Conjunction accuracy"
        ).first.wait_for(timeout=120_000)
        slider = (
            page.locator('[data-testid="stSlider"]')
            .filter(has_text="Workspace slots")
            .first.get_by_role("slider")
        )
        times = []
        for key in ("ArrowLeft", "ArrowLeft", "ArrowRight", "ArrowRight"):
            times.append(timed_change(page, lambda k=key: slider.press(k), "Conjunction accuracy"))
        print(
            f"workspace, capacity slider: {statistics.median(times):.2f} s median (max "
            f"{max(times):.2f}) over "
            f"{len(times)} moves (first two compute, last two are cached)"
        )
        browser.close()


if __name__ == "__main__":
    import sys

    if "--cold" in sys.argv:
        cold_paths()
    else:
        main()
