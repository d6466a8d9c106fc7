// Votes without a reload: a vote arrow's form is sent to the JSON API, and
// the article's points and arrows are redrawn from its answer. Without
// JavaScript the form posts and the page reloads.
const points = (n) => n + (n === 1 ? ' point' : ' points');

document.addEventListener('submit', async (event) => {
  const form = event.target;
  if (!form.classList.contains('arrows')) return;
  const button = event.submitter;
  if (!button) return;
  event.preventDefault();
  const row = form.closest('.article');
  const res = await fetch('/api/articles/' + row.dataset.id + '/vote', {
    method: 'POST',
    headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({direction: button.value}),
  });
  if (!res.ok) {
    const body = await res.json().catch(() => ({error: res.statusText}));
    alert(body.error);
    return;
  }
  const article = await res.json();
  row.querySelector('.points').textContent = points(article.points);
  // The article's own page shows the counts in full too.
  const details = {points: points(article.points), updown: article.upvotes + ' up, ' + article.downvotes + ' down'};
  for (const [id, text] of Object.entries(details)) {
    const el = document.getElementById(id);
    if (el) el.textContent = text;
  }
  for (const b of form.querySelectorAll('button')) {
    const on = button.value !== 'none' && b === button;
    b.classList.toggle('on', on);
    b.value = on ? 'none' : (b.classList.contains('up') ? 'up' : 'down');
  }
});
