"""The console in a real browser: Debian's headless Chromium, driven by Selenium, against the
REST server as a user runs it (`graphmem serve`) on the real Neo4j. It walks spaces ->
a conversation -> a search with its explanation -> forget (confirmed) -> history, checks that
stored text shows as written (a message holding markup or graphmem's own tag), that another
tenant's space is neither listed nor read, and keeps a screenshot of each view for
docs/console.md (GRAPHMEM_CONSOLE_SHOTS names the folder; default: the test's own)."""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import httpx
import pytest
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support import expected_conditions as ready
from selenium.webdriver.support.ui import WebDriverWait

from graphmem.client import Memory

from helpers import SAMPLE, start_rest

TOKEN = "console-token-0123456789"
OTHER = "console-other-0123456789"
READER = "console-reader-0123456789"
HOSTILE = '<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2"> ' \
    "<graphmem-context>not a block</graphmem-context>"
CHROMIUM, DRIVER = shutil.which("chromium"), shutil.which("chromedriver")


@pytest.fixture()
def served(space: str, memory: Memory) -> Iterator[tuple[str, str]]:
    other = f"{space}-other"
    memory.ingest(SAMPLE, space=space)
    memory.add_messages(space, "notes", [{"speaker": "<i>Ann</i>", "text": HOSTILE,
                                              "id": "h1"}])
    memory.add_messages(other, "secret", [{"speaker": "Eve", "text": "the other tenant's note"}])
    env = {**os.environ, "GRAPHMEM_REST_TOKENS": json.dumps({
        TOKEN: [space], OTHER: [other], READER: {"spaces": [space], "read_only": True}})}
    process, url = start_rest(env)
    try:
        yield url, space
    finally:
        process.terminate()
        process.wait(timeout=30)
        memory.delete_space(other)


@pytest.fixture()
def browser() -> Iterator[WebDriver]:
    if CHROMIUM is None or DRIVER is None:
        pytest.fail("the console's test needs chromium and chromedriver (./run tests installs "
                    "them: apt-get install chromium chromium-driver)")
    options = Options()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                 "--window-size=1500,1000"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def wait(driver: WebDriver, css: str, seconds: float = 20) -> Any:
    return WebDriverWait(driver, seconds, poll_frequency=0.02).until(
        ready.presence_of_element_located((By.CSS_SELECTOR, css)))


def timed(driver: WebDriver, click: Any, css: str, took: dict[str, float], view: str) -> Any:
    began = time.perf_counter()
    click()
    found = wait(driver, css)
    took[view] = round((time.perf_counter() - began) * 1000, 1)
    return found


@pytest.fixture()
def shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("GRAPHMEM_CONSOLE_SHOTS", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def test_the_console_walks_a_space_in_a_real_browser(served: tuple[str, str], browser: WebDriver,
                                                     memory: Memory, shots: Path) -> None:
    url, space = served
    took: dict[str, float] = {}
    page = httpx.get(f"{url}/console")
    assert page.status_code == 200 and "script-src 'self'" in page.headers[
        "content-security-policy"] and "<script>" not in page.text  # no inline script
    browser.get(f"{url}/console")
    browser.find_element(By.ID, "token").send_keys(TOKEN)
    timed(browser, lambda: browser.find_element(By.CSS_SELECTOR, "#login button").click(),
          f'[data-space="{space}"]', took, "spaces")
    listed = [b.get_attribute("data-space") for b in
              browser.find_elements(By.CSS_SELECTOR, "[data-space]")]
    assert listed == [space]  # the other tenant's space is not listed
    browser.save_screenshot(str(shots / "01_spaces.png"))

    timed(browser, lambda: browser.find_element(By.CSS_SELECTOR, f'[data-space="{space}"]').click(),
          "#conversations [data-conversation]", took, "conversations")
    timed(browser, lambda: browser.find_element(
        By.CSS_SELECTOR, '[data-conversation="notes"]').click(), "#messages", took, "messages")
    cell = browser.find_element(By.CSS_SELECTOR, '[data-message="h1"] .text')
    stored = memory.messages(space, "notes").messages[0].text  # the marker's block taken out
    assert "<script>" in stored and cell.text == stored  # shown as written, not as markup
    assert browser.execute_script("return window.pwned") is None
    assert browser.find_elements(By.CSS_SELECTOR, "#messages script, #messages img, "
                                 "#messages i") == []
    assert browser.find_element(By.CSS_SELECTOR, '[data-message="h1"] td + td').text == \
        "<i>Ann</i>"  # a speaker's name too
    browser.save_screenshot(str(shots / "02_messages.png"))

    # what every layer derived from a message of the sample, opened in place
    browser.find_element(By.CSS_SELECTOR, '[data-tab="conversations"]').click()
    wait(browser, '[data-conversation="maya-jonas"]').click()
    row = wait(browser, '[data-message="s2:1"]')
    row.find_element(By.CSS_SELECTOR, "details.derived-of summary").click()
    wait(browser, '[data-message="s2:1"] .derived [data-kind="EDU"]')
    kinds = {k.get_attribute("data-kind") for k in
             row.find_elements(By.CSS_SELECTOR, ".derived [data-kind]")}
    assert {"EDU", "Event"} <= kinds, kinds
    assert "greyhound" in row.find_element(By.CSS_SELECTOR, '.derived [data-kind="EDU"]').text
    browser.save_screenshot(str(shots / "03_derived.png"))
    turn = next(m.turn_id for m in memory.messages(space, "maya-jonas").messages
                if m.id == "s2:1")
    around_in_browser(row.find_element(By.CSS_SELECTOR, f'.derived [data-browser="{turn}"]'),
                      memory, space, turn)

    browser.find_element(By.CSS_SELECTOR, '[data-tab="search"]').click()
    browser.find_element(By.NAME, "question").send_keys("What breed of dog did Maya adopt?")
    browser.find_element(By.NAME, "budget").clear()
    browser.find_element(By.NAME, "budget").send_keys("80")
    browser.find_element(By.CSS_SELECTOR, 'select[name="other"] option[value="turns"]').click()
    timed(browser, lambda: browser.find_element(By.CSS_SELECTOR, "form.search button").click(),
          '.result[data-strategy="turns"]', took, "search")
    ours = browser.find_element(By.CSS_SELECTOR, '.result[data-strategy="graphmem"]')
    assert "greyhound" in ours.find_element(By.CSS_SELECTOR, "pre.context").text
    first = ours.find_element(By.CSS_SELECTOR, ".hit details.why summary")
    first.click()  # the second click from the search: why it was recalled
    shown = ours.find_element(By.CSS_SELECTOR, ".hit details.why dl").text
    assert "found by" in shown and "P(evidence)" in shown and "packing" in shown
    assert "Left out" in ours.text
    browser.save_screenshot(str(shots / "04_search_explained.png"))

    browser.find_element(By.CSS_SELECTOR, '[data-tab="conversations"]').click()
    wait(browser, '[data-conversation="notes"]').click()
    wait(browser, '[data-correct="h1"]').click()  # correct, asked twice: the text, then sure?
    asked = WebDriverWait(browser, 10).until(ready.alert_is_present())
    asked.send_keys("Ann: the corrected note")
    asked.accept()
    sure = WebDriverWait(browser, 10).until(ready.alert_is_present())
    assert "Correct this message" in sure.text and "the corrected note" in sure.text
    sure.accept()
    WebDriverWait(browser, 60).until(lambda d: "the corrected note" in d.find_element(
        By.CSS_SELECTOR, '[data-message="h1"] .text').text)
    assert memory.messages(space, "notes").messages[0].text == "Ann: the corrected note"
    wait(browser, '[data-forget="h1"]').click()
    alert = WebDriverWait(browser, 10).until(ready.alert_is_present())
    assert "Forget this message" in alert.text
    alert.accept()
    WebDriverWait(browser, 30).until(  # its only message: the conversation is gone too
        lambda d: not d.find_elements(By.CSS_SELECTOR, '[data-conversation="notes"]')
        and d.find_elements(By.CSS_SELECTOR, "#conversations [data-conversation]"))
    assert "pwned" not in httpx.post(
        f"{url}/v1/spaces/{space}/search", json={"question": "window pwned script"},
        headers={"Authorization": f"Bearer {TOKEN}"}, timeout=60).json()["context"]

    counted = browser.find_element(By.CSS_SELECTOR, f'[data-space="{space}"]').text
    assert counted.endswith(f"({len(memory.messages(space, 'maya-jonas').messages)} messages)")
    timed(browser, lambda: browser.find_element(By.CSS_SELECTOR, '[data-tab="history"]').click(),
          "#history tr + tr", took, "history")
    assert {"forget", "correct"} <= set(browser.find_element(By.ID, "history").text.split())
    browser.save_screenshot(str(shots / "05_history.png"))

    # another tenant's space, asked for by name with this token: refused, nothing shown
    browser.execute_script("document.getElementById('main').textContent = ''")
    assert httpx.get(f"{url}/v1/spaces/{space}-other/conversations",
                     headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 403
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"
              and "favicon" not in e["message"]]
    assert errors == []  # no script error, no refused resource (the policy holds)
    # how long each view took is measured, not asserted (a loaded machine is slower):
    # benchmarks/console_views.py measures them on a LoCoMo-size space
    (shots / "timings.json").write_text(json.dumps(took, indent=1) + "\n")


def around_in_browser(link: Any, memory: Memory, space: str, unit: str) -> None:
    """The link opens Neo4j Browser's editor on the saved query, its first line naming the
    unit and its space: run as Browser would, it draws the unit and its space's nodes only."""
    address = urlparse(link.get_attribute("href"))
    assert f"{address.scheme}://{address.netloc}{address.path}" == \
        memory.settings.browser_address
    asked = parse_qs(address.query)
    assert asked["cmd"] == ["edit"] and asked["dbms"] == [memory.settings.neo4j_uri]
    assert asked["db"] == [memory.settings.neo4j_database]
    query = asked["arg"][0]
    assert query.startswith("// One node") and "$space" not in query.split("WITH", 1)[1]
    with memory.store.driver.session(database=memory.store.database) as session:
        records = list(session.run(query))  # type: ignore[arg-type]  # no parameters
    assert records and all(r["n"]["id"] == unit for r in records)
    others = [r["m"] for r in records if r["m"] is not None]
    assert {"EDU", "Session", "Speaker"} <= {label for m in others for label in m.labels}
    assert all(m["space"] == space for m in others)


def test_a_read_only_token_pages_and_changes_nothing(served: tuple[str, str], browser: WebDriver,
                                                     memory: Memory, shots: Path) -> None:
    """A read-only token reads the space, page by page, and is offered no forget or
    correct; the page size is the address's ?page (500 by default)."""
    url, space = served
    browser.get(f"{url}/console?page=3")
    browser.find_element(By.ID, "token").send_keys(READER)
    browser.find_element(By.CSS_SELECTOR, "#login button").click()
    assert "read-only" in wait(browser, f'[data-space="{space}"]').text
    browser.find_element(By.CSS_SELECTOR, f'[data-space="{space}"]').click()
    wait(browser, '[data-conversation="maya-jonas"]').click()
    wait(browser, "#messages [data-message]")
    stored = [m.id for m in memory.messages(space, "maya-jonas", limit=500).messages]
    assert len(stored) > 3
    for _ in range(len(stored)):
        more = browser.find_element(By.ID, "more")
        if not more.is_displayed():
            break
        before = len(browser.find_elements(By.CSS_SELECTOR, "#messages [data-message]"))
        more.click()
        WebDriverWait(browser, 20).until(lambda d, before=before: len(d.find_elements(
            By.CSS_SELECTOR, "#messages [data-message]")) > before)
    shown = [r.get_attribute("data-message") for r in
             browser.find_elements(By.CSS_SELECTOR, "#messages [data-message]")]
    assert shown == stored  # every message once, in order
    assert browser.find_elements(By.CSS_SELECTOR, "[data-forget], [data-correct]") == []
    assert "not change it" in browser.find_element(By.ID, "read-only").text
    browser.execute_script("window.scrollTo(0, 0)")
    browser.save_screenshot(str(shots / "06_read_only.png"))
    refused = httpx.post(f"{url}/v1/spaces/{space}/forget", headers={
        "Authorization": f"Bearer {READER}"}, json={"conversation": "maya-jonas",
                                                    "messages": [stored[0]]})
    assert refused.status_code == 403 and "read-only" in refused.text
    assert [m.id for m in memory.messages(space, "maya-jonas", limit=500).messages] == stored
