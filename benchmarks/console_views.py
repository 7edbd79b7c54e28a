"""How long each view of the console takes to open in a real browser, on a LoCoMo-size space.

    python benchmarks/console_views.py [--data ../shared/data/locomo/locomo_dev.json]
        [--conversation 0] [--rounds 5] [--out console_views.json]

Needs Debian's chromium and chromedriver (apt-get install chromium chromium-driver) and
selenium (the dev extra). Ingests one LoCoMo conversation with every default layer into a
space of its own (removed at the end), starts `graphmem serve` on a free loopback port with a
token for it, then opens the console and, each round, the space, the conversation (every
message, one page of 500), what the layers derived from its first message, a search of
`graphmem` beside `turns` with the explanation, and the history; a view counts from the click
until its content is in the page. The first round is a warm-up and not counted; reported: the
median and the worst of the rest, per view (target: at most a second, warm). Beside them, a
correction made through the page (confirmed) until the corrected text is shown, in rounds of
their own after the views': a write that derives the conversation's layers again, so not a
view (it grows with the conversation), and the search after it reads the space anew.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

import httpx
from common import LOCOMO, make_parser, publish
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support import expected_conditions as ready
from selenium.webdriver.support.ui import WebDriverWait

from graphmem import Memory
from graphmem.eval.datasets import locomo_questions
from graphmem.ingest.inputs.loaders import parse_file


def opened(driver: WebDriver, click: str, css: str) -> float:
    """Milliseconds from a click on ``click`` until ``css`` is in the page."""
    began = time.perf_counter()
    driver.find_element(By.CSS_SELECTOR, click).click()
    WebDriverWait(driver, 30, poll_frequency=0.01).until(
        ready.presence_of_element_located((By.CSS_SELECTOR, css)))
    return (time.perf_counter() - began) * 1000


def corrected(driver: WebDriver, text: str) -> float:
    """Milliseconds from confirming a correction of the first message until the page shows it."""
    first = driver.find_element(By.CSS_SELECTOR, "#messages tr[data-message]")
    message = first.get_attribute("data-message")
    first.find_element(By.CSS_SELECTOR, "[data-correct]").click()
    asked = WebDriverWait(driver, 10).until(ready.alert_is_present())
    asked.send_keys(text)
    asked.accept()
    sure = WebDriverWait(driver, 10).until(ready.alert_is_present())
    began = time.perf_counter()
    sure.accept()
    WebDriverWait(driver, 600, poll_frequency=0.05,
                  ignored_exceptions=[StaleElementReferenceException]).until(
        lambda d: d.find_element(By.CSS_SELECTOR, f'tr[data-message="{message}"] .text').text
        == text)
    return (time.perf_counter() - began) * 1000


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--data", type=Path, default=LOCOMO)
    parser.add_argument("--conversation", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    conversation = parse_file(args.data, "locomo").conversations[args.conversation]
    question = next(q.question for q in locomo_questions(args.data)
                    if q.conversation == conversation.key)
    space, token = f"bench-console-{uuid.uuid4().hex[:8]}", secrets.token_urlsafe(24)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    took: dict[str, list[float]] = {v: [] for v in
                                    ("space", "conversation", "derived", "search", "history",
                                     "correct")}
    with Memory(progress=True) as memory:
        memory.ingest([conversation], space=space)
        env = {**os.environ, "GRAPHMEM_REST_TOKENS": json.dumps({token: [space]})}
        server = subprocess.Popen([sys.executable, "-m", "graphmem", "serve", "--port",
                                   str(port)], env=env, stderr=subprocess.DEVNULL)
        url = f"http://127.0.0.1:{port}"
        options = Options()
        for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                     "--window-size=1500,1000"):
            options.add_argument(flag)
        driver = None
        try:
            while True:
                try:
                    if httpx.get(f"{url}/v1/health").status_code == 200:
                        break
                except httpx.TransportError:
                    time.sleep(0.5)
            driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
            driver.get(f"{url}/console")
            driver.find_element(By.ID, "token").send_keys(token)
            driver.find_element(By.CSS_SELECTOR, "#login button").click()
            WebDriverWait(driver, 30).until(ready.presence_of_element_located(
                (By.CSS_SELECTOR, f'[data-space="{space}"]')))
            for round_ in range(args.rounds + 1):
                seen = {
                    "space": opened(driver, f'[data-space="{space}"]', "#conversations td"),
                    "conversation": opened(
                        driver, f'[data-conversation="{conversation.key}"]', "#messages td")}
                seen["derived"] = opened(driver, "#messages details.derived-of summary",
                                         "#messages .derived p")
                driver.find_element(By.CSS_SELECTOR, '[data-tab="search"]').click()
                driver.find_element(By.NAME, "question").send_keys(question)
                driver.find_element(
                    By.CSS_SELECTOR, 'select[name="other"] option[value="turns"]').click()
                seen["search"] = opened(driver, "form.search button",
                                        '.result[data-strategy="turns"]')
                seen["history"] = opened(driver, '[data-tab="history"]', "#history td")
                if round_:
                    for view, ms in seen.items():
                        took[view].append(ms)
            # then the corrections, apart: each changes the space, so the first search after
            # one reads the space's table again (not a warm view)
            for round_ in range(args.rounds + 1):
                opened(driver, '[data-tab="conversations"]', "#conversations td")
                opened(driver, f'[data-conversation="{conversation.key}"]', "#messages td")
                ms = corrected(driver, f"correction {round_} of the first message")
                if round_:
                    took["correct"].append(ms)
        finally:
            if driver is not None:
                driver.quit()
            server.terminate()
            server.wait(timeout=30)
            memory.delete_space(space)
    publish({"conversation": conversation.key, "turns": conversation.n_turns,
             "rounds": args.rounds,
             **{f"{view} ms": {"median": round(statistics.median(ms), 1),
                               "worst": round(max(ms), 1)} for view, ms in took.items()}},
            args.out)


if __name__ == "__main__":
    main()
