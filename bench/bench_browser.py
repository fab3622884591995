"""Control-to-figure latency in a real browser (issue: the lab in the browser).

Run alone: ``.venv/bin/python -m bench.bench_browser``. Starts the real lab, drives Debian's
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
  const m = [...document.querySelectorAll('[data-testid="stMetric"]')].find(e => e.innerText.includes(label));
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


def main() -> None:
    with running_lab() as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})

        page.goto(f"{url}/metacognition?agent=b2_ws&seed=0&self_model_mode=on")
        page.locator('[data-testid="stMetric"]').filter(has_text="Type-2 AUROC").first.wait_for(timeout=120_000)
        group = page.get_by_role("radiogroup", name="Self-model")
        miss, hit = [], []
        for seed in range(5):
            if seed:
                page.goto(f"{url}/metacognition?agent=b2_ws&seed={seed}&self_model_mode=on")
                page.locator('[data-testid="stMetric"]').filter(has_text="Type-2 AUROC").first.wait_for(timeout=120_000)
                group = page.get_by_role("radiogroup", name="Self-model")
            miss.append(timed_change(page, lambda g=group: g.get_by_role("radio", name="zeroed", exact=True).click(),
                                     "Type-2 AUROC"))
            hit.append(timed_change(page, lambda g=group: g.get_by_role("radio", name="on", exact=True).click(),
                                    "Type-2 AUROC"))
        print(f"metacognition, self-model switch: first change {statistics.median(miss):.2f} s median "
              f"(max {max(miss):.2f}); back to a seen setting {statistics.median(hit):.2f} s (max {max(hit):.2f})")

        page.goto(f"{url}/workspace?agent=b1&seed=0&capacity=4")
        page.locator('[data-testid="stMetric"]').filter(has_text="Conjunction accuracy").first.wait_for(timeout=120_000)
        slider = page.locator('[data-testid="stSlider"]').filter(has_text="Workspace slots").first.get_by_role("slider")
        times = []
        for key in ("ArrowLeft", "ArrowLeft", "ArrowRight", "ArrowRight"):
            times.append(timed_change(page, lambda k=key: slider.press(k), "Conjunction accuracy"))
        print(f"workspace, capacity slider: {statistics.median(times):.2f} s median (max {max(times):.2f}) over "
              f"{len(times)} moves (first two compute, last two are cached)")
        browser.close()


if __name__ == "__main__":
    main()
