// rewind ui: the live timeline, the VMs view's refresh, and the actions.
// Served from the binary; the page allows no inline script.
"use strict";

(function () {
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const feedURL = document.querySelector('meta[name="feed"]').content;
  const live = document.getElementById("live");
  const records = document.getElementById("records");

  function setLive(state, text) {
    live.dataset.state = state;
    live.textContent = text;
  }

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
    records.prepend(li);
    document.getElementById("empty")?.remove();
    added++;
    setLive("live", "live · " + added + " new");
    if (vms) refreshVMs();
  }
  feed.addEventListener("record", (ev) => addRecord(ev, false));
  feed.addEventListener("record-vms", (ev) => addRecord(ev, true));
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
      text.textContent = p.text;
      show(problem, p.problem ? "Zerto cannot do this now: " + p.problem : "");
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
        show(errorBox, st.error || resp.statusText);
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
    el.textContent = st.message;
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
      await new Promise((r) => setTimeout(r, 500));
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
