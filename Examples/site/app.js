// Shows that the script was fetched and ran, and what the browser thinks of the network, so a
// page served from Larder's cache is easy to tell from a page without its assets.
const status = document.getElementById('status');
status.textContent = 'app.js ran';
status.classList.add('ran');

const network = document.getElementById('network');
function showNetwork() {
  const when = new Date().toLocaleTimeString();
  network.textContent = `Loaded at ${when}; the browser reports it is ${navigator.onLine ? 'online' : 'offline'}.`;
}
window.addEventListener('online', showNetwork);
window.addEventListener('offline', showNetwork);
showNetwork();
