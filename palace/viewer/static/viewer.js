// palace viewer: the live feed (server-sent events). Everything else works without JS.
(function () {
  "use strict";
  var list = document.getElementById("feed");
  if (!list || !window.EventSource) { return; }
  var state = document.getElementById("feed-state");
  var template = document.getElementById("feed-item");
  var source = new EventSource(list.getAttribute("data-events"));
  source.addEventListener("open", function () { state.textContent = "Live."; });
  source.addEventListener("error", function () { state.textContent = "Reconnecting…"; });
  source.addEventListener("memory", function (event) {
    var m = JSON.parse(event.data);
    if (document.getElementById("f-" + m.id)) { return; }  // already shown (a reconnect)
    var item = template.content.firstElementChild.cloneNode(true);
    item.id = "f-" + m.id;
    if (m.type === "observation") { item.classList.add("observation"); }
    var link = item.querySelector("a");
    link.href = m.url;
    link.textContent = m.excerpt;                 // text, never HTML
    item.querySelector(".type").textContent = m.type;
    item.querySelector(".loc").textContent = m.location;
    item.querySelector(".when").textContent = (m.created_at || "").replace("T", " ").slice(0, 16);
    item.querySelector(".tags").textContent = m.tags.map(function (t) { return "#" + t; }).join(" ");
    var form = item.querySelector("form");
    form.action = m.url + "/delete";
    form.querySelector("button").setAttribute("aria-label", "Delete: " + m.excerpt.slice(0, 40));
    list.insertBefore(item, list.firstChild);
    state.textContent = "Live. New: " + m.excerpt.slice(0, 60);
  });
})();
