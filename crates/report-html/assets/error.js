window.addEventListener('error', function (e) {
  var d = document.createElement('div');
  d.id = 'agentpi-error';
  d.textContent = String(e.message);
  (document.body || document.documentElement).appendChild(d);
});
