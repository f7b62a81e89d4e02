(function () {
  function light(chart, step, on) {
    chart.querySelectorAll('[data-step="' + step + '"]').forEach(function (e) {
      e.classList.toggle('hl', on);
    });
  }
  var charts = document.querySelectorAll('.chart');
  charts.forEach(function (chart) {
    ['mouseover', 'mouseout'].forEach(function (type) {
      chart.addEventListener(type, function (ev) {
        var at = ev.target.closest('[data-step]');
        if (at) light(chart, at.getAttribute('data-step'), type === 'mouseover');
      });
    });
    chart.addEventListener('click', function (ev) {
      var at = ev.target.closest('li[data-step]');
      if (!at) return;
      var g = chart.querySelector('g.step[data-step="' + at.getAttribute('data-step') + '"]');
      if (g) g.scrollIntoView({block: 'nearest'});
    });
  });
  // `page.html#selftest` (the browser tests) hovers each step of the list and counts the
  // arrows that lit up with it, and the reverse.
  var lit = 0;
  if (location.hash === '#selftest') {
    charts.forEach(function (chart) {
      chart.querySelectorAll('li[data-step]').forEach(function (li) {
        var g = chart.querySelector('g.step[data-step="' + li.getAttribute('data-step') + '"]');
        li.dispatchEvent(new MouseEvent('mouseover', {bubbles: true}));
        var on = g && g.classList.contains('hl');
        li.dispatchEvent(new MouseEvent('mouseout', {bubbles: true}));
        if (g) g.firstChild.dispatchEvent(new MouseEvent('mouseover', {bubbles: true}));
        if (on && li.classList.contains('hl')) lit++;
        if (g) g.firstChild.dispatchEvent(new MouseEvent('mouseout', {bubbles: true}));
      });
    });
  }
  var ready = document.createElement('div');
  ready.id = 'agentpi-ready';
  ready.hidden = true;
  ready.setAttribute('data-charts', String(charts.length));
  ready.setAttribute('data-steps', String(document.querySelectorAll('g.step').length));
  ready.setAttribute('data-marked', String(document.querySelectorAll('g.step.marked').length));
  ready.setAttribute('data-lit', String(lit));
  document.body.appendChild(ready);
})();
