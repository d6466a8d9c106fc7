// Votes without a reload: a vote arrow's form is sent to the JSON API, and
// the article's or the comment's points and arrows are redrawn from its
// answer. Without JavaScript the form posts and the page reloads.
const points = (n) => n + (n === 1 ? ' point' : ' points');

document.addEventListener('submit', async (event) => {
  const form = event.target;
  if (!form.classList.contains('arrows')) return;
  const button = event.submitter;
  if (!button) return;
  event.preventDefault();
  // A comment's arrows are inside its own item, which is inside the
  // article's page: the nearest item is the one voted on.
  const row = form.closest('.comment, .article');
  const comment = row.classList.contains('comment');
  const res = await fetch((comment ? '/api/comments/' : '/api/articles/') + row.dataset.id + '/vote', {
    method: 'POST',
    headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({direction: button.value}),
  });
  if (!res.ok) {
    const body = await res.json().catch(() => ({error: res.statusText}));
    alert(body.error);
    return;
  }
  const item = await res.json();
  // The item's own points come before those of any reply inside it.
  row.querySelector('.points').textContent = points(item.points);
  // The article's own page shows the counts in full too.
  const details = {points: points(item.points), updown: item.upvotes + ' up, ' + item.downvotes + ' down'};
  for (const [id, text] of Object.entries(comment ? {} : details)) {
    const el = document.getElementById(id);
    if (el) el.textContent = text;
  }
  for (const b of form.querySelectorAll('button')) {
    const on = button.value !== 'none' && b === button;
    b.classList.toggle('on', on);
    b.value = on ? 'none' : (b.classList.contains('up') ? 'up' : 'down');
  }
});
