"""Screenshots of the styled Neo4j Browser walking the demo space, in headless Chromium.

    apt-get install chromium chromium-driver      # Debian's browser and driver
    pip install -e '.[browser]'                   # selenium
    graphmem demo                                 # the space 'demo'
    python docs/browser/capture.py                # writes docs/browser/*.png

It logs in, applies graphmem's style with one `:style` command, sets the space, runs every saved
query of cypher/browser/ and keeps a picture of each result.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support import expected_conditions as ready
from selenium.webdriver.support.ui import WebDriverWait

from graphmem.cli import STYLE
from graphmem.config import Settings
from graphmem.cypher import cypher_dir

HERE = Path(__file__).parent


def one_line(text: str) -> str:
    """A statement as one editor line: comments dropped, whitespace collapsed."""
    kept = [line.split("//")[0] for line in text.splitlines()]
    return " ".join(" ".join(kept).split())


def run(driver: WebDriver, command: str, pause: float = 4.0) -> None:
    editor = WebDriverWait(driver, 30).until(
        ready.element_to_be_clickable((By.CSS_SELECTOR, ".monaco-editor textarea")))
    editor.send_keys(Keys.CONTROL, "a")
    editor.send_keys(Keys.DELETE)
    editor.send_keys(command)
    editor.send_keys(Keys.CONTROL, Keys.ENTER)
    time.sleep(pause)


def main(space: str = "demo") -> None:
    settings = Settings()
    options = Options()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                 "--window-size=1600,1000"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        driver.get(f"http://127.0.0.1:{settings.neo4j_http_port}/browser/"
                   f"?dbms=neo4j://{settings.neo4j_user}@127.0.0.1:{settings.bolt_port}")
        password = WebDriverWait(driver, 60).until(
            ready.presence_of_element_located((By.CSS_SELECTOR, "input[type=password]")))
        password.send_keys(settings.neo4j_password.get_secret_value(), Keys.ENTER)
        time.sleep(5)
        run(driver, ":style " + " ".join(STYLE.read_text().split()))
        run(driver, f":param space => '{space}'")
        run(driver, ":param word => 'dog'")
        for path in sorted((cypher_dir() / "browser").glob("*.cypher")):
            run(driver, one_line(path.read_text()), pause=6.0)
            driver.save_screenshot(str(HERE / f"{path.stem}.png"))
            print(f"wrote {HERE / (path.stem + '.png')}")
    finally:
        driver.quit()


if __name__ == "__main__":
    main(*sys.argv[1:])
