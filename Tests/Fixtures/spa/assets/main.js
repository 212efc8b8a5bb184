// The app: every step records what happened, so a failed step shows which and why.
const report = { done: false, deploy: document.getElementById("app").dataset.deploy };
window.__report = report;

async function json(url, init) {
  const response = await fetch(url, init);
  const text = await response.text();
  let body = null;
  try { body = JSON.parse(text); } catch { body = text; }
  return { status: response.status, offline: response.headers.get("larder-offline"), body };
}

async function step(name, work) {
  try {
    report[name] = await work();
  } catch (error) {
    report[name] = { error: String(error) };
  }
}

async function main() {
  if (document.readyState !== "complete") {
    await new Promise((resolve) => window.addEventListener("load", resolve, { once: true }));
  }
  await step("theme", async () =>
    getComputedStyle(document.getElementById("theme-probe")).color === "rgb(1, 2, 3)" ? "applied" : "missing");
  let settingsChunk = null;
  await step("chunk", async () => {
    settingsChunk = await import("./{{SETTINGS}}");
    return "loaded";
  });
  await step("settings", () => json("/api/settings?" + Date.now()));
  await step("feed", () => json("{{API_ORIGIN}}/api/feed?_=" + Date.now()));
  const token = (document.cookie.match(/(?:^|; )_xsrf=([^;]*)/) || [])[1] || null;
  report.xsrfCookie = token !== null;
  await step("save", () =>
    json("/api/save", {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-XSRFToken": token || "" },
      body: JSON.stringify({ score: 42 }),
    }));
  await step("websocket", () =>
    new Promise((resolve) => {
      const socket = new WebSocket("{{WS_URL}}");
      const timer = setTimeout(() => { socket.close(); resolve("timeout"); }, 8000);
      socket.onopen = () => socket.send("ping");
      socket.onmessage = (event) => {
        if (String(event.data).startsWith("echo:")) {
          clearTimeout(timer);
          socket.close();
          resolve(String(event.data));
        }
      };
      socket.onerror = () => { clearTimeout(timer); resolve("error"); };
    }));
  if (settingsChunk && report.settings && report.settings.body && typeof report.settings.body === "object") {
    document.getElementById("app").textContent = settingsChunk.render(report.settings.body);
    report.rendered = document.getElementById("app").textContent;
  }
  report.done = true;
}

main();
