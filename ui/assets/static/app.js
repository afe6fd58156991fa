// rewind ui: the live timeline, the VMs view's refresh, and the actions.
// Served from the binary; the page allows no inline script.
"use strict";

(function () {
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const feedURL = document.querySelector('meta[name="feed"]').content;
  const pollMS = Number(document.querySelector('meta[name="poll"]').content) || 500;
  const live = document.getElementById("live");
  const records = document.getElementById("records");

  function setLive(state, text) {
    live.dataset.state = state;
    live.textContent = text;
  }

  // Every time on the page is shown in one zone, named after it: this
  // computer's by default, UTC when the person chooses it (kept in the
  // browser). The server writes each as <time class="t" datetime="...Z">,
  // also inside reasons; texts that come as JSON (a confirmation) have
  // their RFC 3339 times rewritten the same way.
  const zoneButton = document.getElementById("zone");
  let zone = "local";
  try {
    if (localStorage.getItem("rewind.zone") === "utc") zone = "utc";
  } catch (e) {
    // No storage (a private window): the default for this visit.
  }
  const pad = (n) => String(n).padStart(2, "0");
  function localZoneName(d) {
    const part = new Intl.DateTimeFormat(undefined, { timeZoneName: "short" })
      .formatToParts(d)
      .find((p) => p.type === "timeZoneName");
    return part ? part.value : "local";
  }
  function formatTime(d) {
    if (zone === "utc") {
      return d.getUTCFullYear() + "-" + pad(d.getUTCMonth() + 1) + "-" + pad(d.getUTCDate()) + " " +
        pad(d.getUTCHours()) + ":" + pad(d.getUTCMinutes()) + ":" + pad(d.getUTCSeconds()) + " UTC";
    }
    return d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate()) + " " +
      pad(d.getHours()) + ":" + pad(d.getMinutes()) + ":" + pad(d.getSeconds()) + " " + localZoneName(d);
  }
  function applyZone(root) {
    for (const el of root.querySelectorAll("time.t[datetime]")) {
      const d = new Date(el.getAttribute("datetime"));
      if (isNaN(d)) continue;
      el.textContent = formatTime(d);
      el.title = el.getAttribute("datetime");
    }
  }
  const timeInText = /\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)/g;
  function zoneText(s) {
    return String(s || "").replace(timeInText, (m) => {
      const d = new Date(m);
      return isNaN(d) ? m : formatTime(d);
    });
  }
  function setZone(z) {
    zone = z;
    document.documentElement.dataset.zone = zone;
    zoneButton.textContent = zone === "utc" ? "times: UTC" : "times: " + localZoneName(new Date()) + " (this computer)";
    zoneButton.setAttribute("aria-pressed", zone === "utc" ? "true" : "false");
    applyZone(document);
  }
  zoneButton.addEventListener("click", () => {
    const next = zone === "utc" ? "local" : "utc";
    try {
      localStorage.setItem("rewind.zone", next);
    } catch (e) {
      // Not kept: the choice lasts this visit.
    }
    setZone(next);
  });
  setZone(zone);

  // The VMs view is rendered by the server; it is fetched again when a
  // new checkpoint or a rewind is logged, and when an action ends.
  let vmsTimer = null;
  function refreshVMs() {
    if (vmsTimer) return;
    vmsTimer = setTimeout(async () => {
      vmsTimer = null;
      try {
        const resp = await fetch("/fragment/vms", { credentials: "same-origin" });
        if (!resp.ok) return;
        const html = await resp.text();
        const body = document.getElementById("vms-body");
        const open = new Set([...body.querySelectorAll("details[open]")].map((d) => d.closest("[id]").id));
        body.outerHTML = html;
        applyZone(document.getElementById("vms-body"));
        for (const id of open) {
          const d = document.getElementById(id)?.querySelector("details");
          if (d) d.open = true;
        }
      } catch (e) {
        // The next event tries again.
      }
    }, 200);
  }

  // The page is served without waiting for Zerto; the VPGs' health
  // comes now.
  if (document.getElementById("vms-body")?.dataset.checking) refreshVMs();

  // Live feed: each new decision that passes the page's filter arrives as
  // a rendered row.
  let connectedOnce = false;
  let added = 0;
  const feed = new EventSource(feedURL);
  feed.addEventListener("ready", () => {
    if (connectedOnce) {
      // Reconnected: records may have been missed meanwhile.
      location.reload();
      return;
    }
    connectedOnce = true;
    setLive("live", "live");
  });
  function addRecord(ev, vms) {
    const tpl = document.createElement("template");
    tpl.innerHTML = ev.data.trim();
    const li = tpl.content.firstElementChild;
    if (!li) return;
    const old = document.getElementById(li.id);
    if (old) old.remove();
    li.classList.add("new");
    applyZone(li);
    records.prepend(li);
    document.getElementById("empty")?.remove();
    added++;
    setLive("live", "live · " + added + " new");
    if (vms) refreshVMs();
  }
  feed.addEventListener("record", (ev) => addRecord(ev, false));
  feed.addEventListener("record-vms", (ev) => addRecord(ev, true));
  // A call's outcome, which the host reports once it ran: the newest row
  // of the call (the host, its session and its tool-use id name it) gets
  // its badge, and the VMs view, when it lists the call among what a
  // restore undoes, is fetched again for its count.
  function sameCall(el, o) {
    return el.dataset.toolUse === o.tool_use_id && el.dataset.session === o.session && el.dataset.host === o.host;
  }
  feed.addEventListener("outcome", (ev) => {
    let o;
    try {
      o = JSON.parse(ev.data);
    } catch (e) {
      return;
    }
    const li = [...records.querySelectorAll("li.rec[data-tool-use]")].find((el) => sameCall(el, o));
    if (li) {
      const badge = li.querySelector(".outcome");
      if (badge) {
        badge.textContent = o.text;
        badge.dataset.state = o.state;
        badge.title = o.title;
        badge.hidden = !o.text;
      }
      li.querySelector(".outcome-err")?.remove();
      if (o.error) {
        const p = document.createElement("p");
        p.className = "outcome-err";
        p.textContent = "the host reported: " + zoneText(o.error);
        li.querySelector("pre.call").after(p);
      }
    }
    const listed = document.querySelectorAll("#vms-body li[data-tool-use]");
    if ([...listed].some((el) => sameCall(el, o))) refreshVMs();
  });
  feed.addEventListener("vms", refreshVMs);
  feed.addEventListener("reload", () => {
    feed.close();
    location.reload();
  });
  feed.onerror = () => setLive("down", "reconnecting…");

  // Actions: a click asks the server what the action does (and, for a
  // restore, what it loses), shows it for confirmation, then starts it and
  // follows its task.
  const dialog = document.getElementById("confirm");
  const form = document.getElementById("confirm-form");
  const title = document.getElementById("confirm-title");
  const text = document.getElementById("confirm-text");
  const problem = document.getElementById("confirm-problem");
  const names = document.getElementById("confirm-names");
  const want = document.getElementById("confirm-want");
  const input = document.getElementById("confirm-input");
  const creds = document.getElementById("confirm-credentials");
  const user = document.getElementById("confirm-user");
  const password = document.getElementById("confirm-password");
  const foreign = document.getElementById("confirm-foreign");
  const foreignInput = document.getElementById("confirm-foreign-input");
  const errorBox = document.getElementById("confirm-error");
  const ok = document.getElementById("confirm-ok");
  let pending = null;

  function show(el, msg) {
    el.hidden = !msg;
    el.textContent = msg || "";
  }

  document.addEventListener("click", async (ev) => {
    const btn = ev.target.closest("button.act");
    if (!btn || btn.disabled) return;
    const q = new URLSearchParams({ mode: btn.dataset.action, id: btn.dataset.id, vpg: btn.dataset.vpg });
    btn.disabled = true;
    try {
      const resp = await fetch("/api/prepare?" + q, { credentials: "same-origin" });
      const p = await resp.json();
      if (!resp.ok) {
        addJob({ id: "err-" + Date.now(), running: false, ok: false, message: p.error });
        return;
      }
      pending = { mode: p.mode, id: btn.dataset.id, vpg: btn.dataset.vpg };
      title.textContent = p.title;
      text.textContent = zoneText(p.text);
      show(problem, p.problem ? "Zerto cannot do this now: " + zoneText(p.problem) : "");
      show(errorBox, "");
      names.hidden = !p.type_names;
      want.textContent = (p.vms || []).join(", ");
      input.value = "";
      // The person's own credentials: asked for each action, never kept
      // by the page either.
      creds.hidden = !p.credentials;
      user.value = "";
      password.value = "";
      foreign.hidden = !p.foreign;
      foreignInput.checked = false;
      ok.textContent = p.title;
      ok.classList.toggle("danger", p.mode === "restore" || p.mode === "rollback");
      dialog.showModal();
      if (p.type_names) input.focus();
    } catch (e) {
      addJob({ id: "err-" + Date.now(), running: false, ok: false, message: String(e) });
    } finally {
      btn.disabled = false;
    }
  });

  function forget() {
    pending = null;
    password.value = "";
    user.value = "";
  }

  document.getElementById("confirm-cancel").addEventListener("click", () => {
    forget();
    dialog.close();
  });

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    if (!pending) return;
    const body = new URLSearchParams({ mode: pending.mode, id: pending.id, vpg: pending.vpg, confirm: input.value });
    if (!creds.hidden) {
      body.set("zvm_user", user.value);
      body.set("zvm_password", password.value);
    }
    if (!foreign.hidden && foreignInput.checked) body.set("foreign", "1");
    ok.disabled = true;
    try {
      const resp = await fetch("/api/action", {
        method: "POST",
        credentials: "same-origin",
        headers: { "X-CSRF-Token": csrf, "Content-Type": "application/x-www-form-urlencoded" },
        body,
      });
      const st = await resp.json();
      password.value = "";
      if (!resp.ok) {
        show(errorBox, zoneText(st.error || resp.statusText));
        return;
      }
      forget();
      dialog.close();
      addJob(st);
      follow(st.id);
    } catch (e) {
      show(errorBox, String(e));
    } finally {
      ok.disabled = false;
    }
  });

  const jobs = document.getElementById("jobs");
  function addJob(st) {
    let el = jobs.querySelector('[data-job="' + CSS.escape(st.id) + '"]');
    if (!el) {
      el = document.createElement("p");
      el.className = "job";
      el.dataset.job = st.id;
      jobs.prepend(el);
    }
    el.dataset.state = st.running ? "running" : st.ok ? "ok" : "failed";
    el.dataset.mode = st.mode || "";
    el.textContent = zoneText(st.message);
    if (st.undo) {
      const code = document.createElement("code");
      code.textContent = st.undo;
      el.append(" To undo it: ", code);
    }
    if (st.running) {
      const bar = document.createElement("progress");
      bar.max = 100;
      bar.value = st.progress || 0;
      el.append(" ", bar);
    }
  }

  async function follow(id) {
    for (;;) {
      await new Promise((r) => setTimeout(r, pollMS));
      let st;
      try {
        const resp = await fetch("/api/jobs/" + encodeURIComponent(id), { credentials: "same-origin" });
        if (!resp.ok) return;
        st = await resp.json();
      } catch (e) {
        continue;
      }
      addJob(st);
      if (!st.running) {
        refreshVMs();
        return;
      }
    }
  }
})();
