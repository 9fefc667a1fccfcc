// partita serve: what every page shares. No build step, no dependency.
// window.partita.post(url, data): a JSON POST carrying the page's CSRF token.
// window.partita.getJSON(url): a GET of the JSON API, rejecting with its reason.
"use strict";
(function () {
  function token() {
    const meta = document.querySelector('meta[name="csrf-token"]');
    return meta ? meta.content : "";
  }
  async function answer(response) {
    let data = null;
    try {
      data = await response.json();
    } catch (error) {
      throw new Error(`the server answered ${response.status} without JSON`);
    }
    if (!response.ok) {
      throw new Error(data && data.error ? data.error : `the server answered ${response.status}`);
    }
    return data;
  }
  async function post(url, data) {
    const response = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": token() },
      body: JSON.stringify(data || {}),
      credentials: "same-origin",
    });
    return answer(response);
  }
  async function getJSON(url) {
    const response = await fetch(url, { headers: { Accept: "application/json" } });
    return answer(response);
  }
  function jsonData(id) {
    const element = document.getElementById(id);
    return element ? JSON.parse(element.textContent) : null;
  }
  window.partita = { post, getJSON, jsonData, token };
})();
