/**
 * The pages' one stylesheet: system fonts, light and dark from `prefers-color-scheme`, readable
 * from 320 px up. Served as `/assets/chorus.<content hash>.css` with a year-long cache (assets.ts).
 * Kept in a module rather than a .css file so that the build stays `tsc` alone.
 */
export const STYLESHEET = String.raw`
:root {
  color-scheme: light dark;
  --bg: #f6f6f8; --surface: #ffffff; --text: #18181d; --muted: #575864; --border: #d9dae1;
  --accent: #3646c8; --accent-strong: #26339a; --accent-soft: #eceefc; --on-accent: #ffffff;
  --danger: #a3261d; --danger-soft: #fbeceb; --ok: #17693a; --ok-soft: #e3f4e9;
  --open: #4d4e59; --open-bg: #ececf1; --planned: #1f48b8; --planned-bg: #e2eafd;
  --in_progress: #8a3b07; --in_progress-bg: #fcefd9; --done: #17693a; --done-bg: #e0f3e6;
  --closed: #5f3c8c; --closed-bg: #efe8f8;
  --radius: 10px; --shadow: 0 1px 2px rgb(0 0 0 / 6%);
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #121318; --surface: #1b1c23; --text: #ececf1; --muted: #a9abb8; --border: #30323c;
    --accent: #94a2ff; --accent-strong: #b9c2ff; --accent-soft: #262a45; --on-accent: #0f1120;
    --danger: #ff9d94; --danger-soft: #3a1f1d; --ok: #7fdca0; --ok-soft: #17301f;
    --open: #d3d4dc; --open-bg: #2c2d36; --planned: #a9c1ff; --planned-bg: #1f2a48;
    --in_progress: #f7c37f; --in_progress-bg: #3a2a14; --done: #8fe0ab; --done-bg: #173323;
    --closed: #d6bdf7; --closed-bg: #2f2440;
    --shadow: none;
  }
}
*, *::before, *::after { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; text-size-adjust: 100%; }
body {
  margin: 0; background: var(--bg); color: var(--text);
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
}
a { color: var(--accent); text-underline-offset: 2px; }
a:hover { color: var(--accent-strong); }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
h1, h2, h3 { line-height: 1.25; margin: 0 0 .5rem; }
h1 { font-size: 1.6rem; }
h2 { font-size: 1.15rem; }
p { margin: 0 0 .75rem; }
.wrap { max-width: 68rem; margin: 0 auto; padding: 0 1rem; }
.skip { position: absolute; left: -999px; top: 0; background: var(--surface); padding: .5rem 1rem; z-index: 2; }
.skip:focus { left: 1rem; }
.site-header { background: var(--surface); border-bottom: 1px solid var(--border); }
.site-header .wrap { display: flex; flex-wrap: wrap; align-items: center; gap: .5rem 1.25rem; min-height: 3.5rem; padding-top: .5rem; padding-bottom: .5rem; }
.brand { font-weight: 700; font-size: 1.1rem; color: var(--text); text-decoration: none; margin-right: auto; }
.site-header nav ul { display: flex; flex-wrap: wrap; gap: .25rem 1rem; list-style: none; margin: 0; padding: 0; align-items: center; }
.site-header nav a { color: var(--text); text-decoration: none; }
.site-header nav a:hover, .site-header nav a[aria-current] { text-decoration: underline; }
.who { color: var(--muted); }
main.wrap { padding-top: 1.5rem; padding-bottom: 3rem; overflow-wrap: break-word; }
.compact .site-header .wrap { min-height: 2.5rem; padding-top: .25rem; padding-bottom: .25rem; font-size: .9375rem; }
.compact main.wrap { padding-top: 1rem; padding-bottom: 1.5rem; }
.site-footer { color: var(--muted); font-size: .875rem; padding: 1.5rem 0 2rem; border-top: 1px solid var(--border); }
.lead { color: var(--muted); margin-top: -.25rem; }
/* What users wrote: its direction from its own text (as dir=auto), isolated from ours, and long words broken. */
.user-text, .post h2, .excerpt, .meta bdi, .comment .who { overflow-wrap: anywhere; unicode-bidi: plaintext; }
.meta > * { min-width: 0; }
.card { background: var(--surface); border: 1px solid var(--border); border-radius: var(--radius); box-shadow: var(--shadow); padding: 1rem; }
.stack > * + * { margin-top: 1rem; }
main > section + section, main > .stack + .stack, main > section.stack { margin-top: 2rem; }
.columns { display: grid; grid-template-columns: minmax(0, 1fr); gap: 1.5rem; }
@media (min-width: 56rem) { .columns { grid-template-columns: minmax(0, 1fr) 19rem; align-items: start; } }
.board-list { list-style: none; margin: 0; padding: 0; display: grid; gap: 1rem; }
@media (min-width: 40rem) { .board-list { grid-template-columns: repeat(auto-fill, minmax(17rem, 1fr)); } }
.board-list h2 a { text-decoration: none; }
.count { color: var(--muted); font-size: .875rem; }
.toolbar { display: flex; flex-wrap: wrap; gap: .75rem 1.25rem; align-items: flex-end; margin-bottom: 1rem; }
.tabs { display: flex; gap: .25rem; list-style: none; margin: 0; padding: 0; }
.tabs a { display: inline-block; padding: .35rem .75rem; border-radius: 999px; text-decoration: none; color: var(--text); border: 1px solid var(--border); background: var(--surface); }
.tabs a[aria-current] { background: var(--accent); border-color: var(--accent); color: var(--on-accent); }
.filters { display: flex; flex-wrap: wrap; gap: .5rem; align-items: flex-end; flex: 1 1 20rem; }
.filters .field { flex: 1 1 10rem; margin: 0; }
.posts { list-style: none; margin: 0; padding: 0; }
.post { display: flex; gap: .9rem; padding: 1rem; background: var(--surface); border: 1px solid var(--border); border-radius: var(--radius); box-shadow: var(--shadow); }
.post + .post { margin-top: .75rem; }
.post-main { min-width: 0; flex: 1; }
.post h2 { font-size: 1.05rem; margin-bottom: .25rem; }
.post h2 a { color: var(--text); text-decoration: none; }
.post h2 a:hover { text-decoration: underline; }
.excerpt { color: var(--muted); margin-bottom: .4rem; }
.meta { display: flex; flex-wrap: wrap; gap: .25rem .75rem; color: var(--muted); font-size: .875rem; margin: 0; align-items: center; }
.votes { flex: none; width: 3.6rem; margin: 0; }
.vote { display: flex; flex-direction: column; align-items: center; padding: .35rem 0; border: 1px solid var(--border); border-radius: 8px; background: var(--surface); color: var(--text); font: inherit; cursor: pointer; text-decoration: none; line-height: 1.2; }
.vote:hover { border-color: var(--accent); }
form.votes .vote { width: 100%; }
.vote[data-voted="true"] { background: var(--accent-soft); border-color: var(--accent); color: var(--accent-strong); }
.vote::before { content: ""; border: .4rem solid transparent; border-bottom: .5rem solid currentColor; border-top: 0; margin-bottom: .15rem; }
.vote strong { font-size: 1.05rem; }
.vote span { font-size: .75rem; color: var(--muted); }
.status { display: inline-block; padding: .05rem .55rem; border-radius: 999px; font-size: .8rem; font-weight: 600; white-space: nowrap; }
.status-open { color: var(--open); background: var(--open-bg); }
.status-planned { color: var(--planned); background: var(--planned-bg); }
.status-in_progress { color: var(--in_progress); background: var(--in_progress-bg); }
.status-done { color: var(--done); background: var(--done-bg); }
.status-closed { color: var(--closed); background: var(--closed-bg); }
.official { display: inline-block; padding: .05rem .5rem; border-radius: 999px; font-size: .75rem; font-weight: 700; color: var(--on-accent); background: var(--accent); }
.pager { display: flex; justify-content: space-between; gap: 1rem; margin-top: 1rem; }
.empty { color: var(--muted); padding: 1.5rem; text-align: center; background: var(--surface); border: 1px dashed var(--border); border-radius: var(--radius); }
.field { margin-bottom: .9rem; }
.field label, .label { display: block; font-weight: 600; margin-bottom: .25rem; }
.hint { display: block; color: var(--muted); font-size: .85rem; margin-top: .2rem; }
input[type=text], input[type=email], input[type=search], input[type=url], input:not([type]), select, textarea {
  width: 100%; font: inherit; color: var(--text); background: var(--bg); border: 1px solid var(--border);
  border-radius: 8px; padding: .5rem .65rem; min-height: 2.5rem;
}
textarea { resize: vertical; min-height: 6rem; }
input[aria-invalid=true], textarea[aria-invalid=true], select[aria-invalid=true] { border-color: var(--danger); }
.error { color: var(--danger); font-size: .9rem; margin-top: .25rem; display: block; }
.alert { border-radius: 8px; padding: .75rem 1rem; margin-bottom: 1rem; border: 1px solid var(--border); }
.alert-error { background: var(--danger-soft); color: var(--danger); border-color: var(--danger); }
.alert-ok { background: var(--ok-soft); color: var(--ok); border-color: var(--ok); }
button, .button {
  display: inline-flex; align-items: center; justify-content: center; gap: .4rem; font: inherit; font-weight: 600;
  padding: .5rem 1rem; min-height: 2.5rem; border-radius: 8px; border: 1px solid var(--accent);
  background: var(--accent); color: var(--on-accent); cursor: pointer; text-decoration: none;
}
button:hover, .button:hover { background: var(--accent-strong); border-color: var(--accent-strong); color: var(--on-accent); }
button.secondary, .button.secondary { background: var(--surface); color: var(--accent); }
button.secondary:hover, .button.secondary:hover { background: var(--accent-soft); color: var(--accent-strong); }
button.link { background: none; border: none; padding: 0; min-height: 0; color: var(--accent); font-weight: 400; text-decoration: underline; }
button.danger { background: var(--danger); border-color: var(--danger); color: var(--surface); }
.inline { display: inline; margin: 0; }
.post-page .post-head { display: flex; gap: 1rem; align-items: flex-start; }
.post-page .body { margin-top: 1rem; }
.post-page + section { margin-top: 2rem; }
.body p:last-child { margin-bottom: 0; }
.comments { list-style: none; margin: 0; padding: 0; }
.comment { padding: .9rem 1rem; background: var(--surface); border: 1px solid var(--border); border-radius: var(--radius); }
.comment + .comment { margin-top: .75rem; }
.awaiting { display: inline-block; padding: .05rem .5rem; border-radius: 999px; font-size: .75rem; font-weight: 700; border: 1px solid currentColor; }
.comment.is-official { border-color: var(--accent); }
.comment header { display: flex; flex-wrap: wrap; gap: .25rem .75rem; align-items: center; margin-bottom: .35rem; font-size: .9rem; }
.comment header .who { color: var(--text); font-weight: 600; }
.roadmap { display: grid; gap: 1rem; }
@media (min-width: 52rem) { .roadmap { grid-template-columns: repeat(3, minmax(0, 1fr)); } }
.roadmap section { background: var(--surface); border: 1px solid var(--border); border-radius: var(--radius); padding: 1rem; min-width: 0; }
.roadmap ol { list-style: none; margin: 0; padding: 0; }
.roadmap li { padding: .5rem 0; border-top: 1px solid var(--border); display: flex; gap: .6rem; align-items: baseline; }
.roadmap li:first-child { border-top: none; }
.roadmap .n { flex: none; min-width: 2.2rem; font-weight: 700; text-align: right; }
.narrow { max-width: 28rem; }
.code-input { font-size: 1.5rem; letter-spacing: .3em; font-variant-numeric: tabular-nums; }
dl.facts { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: .25rem 1rem; margin: 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
table { width: 100%; border-collapse: collapse; background: var(--surface); }
th, td { text-align: left; padding: .5rem .6rem; border-bottom: 1px solid var(--border); vertical-align: top; }
th { font-size: .85rem; color: var(--muted); font-weight: 600; }
.table-wrap { position: relative; overflow-x: auto; border: 1px solid var(--border); border-radius: var(--radius); }
/* On a phone a table scrolls inside its frame rather than break titles and names into syllables. */
td.user-text { min-width: 9rem; }
.secret { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; overflow-wrap: anywhere; background: var(--bg); border: 1px solid var(--border); border-radius: 6px; padding: .5rem .65rem; display: block; }
pre { background: var(--bg); border: 1px solid var(--border); border-radius: 8px; padding: .75rem; overflow-x: auto; font-size: .85rem; }
.check { display: flex; flex-wrap: wrap; gap: .25rem .5rem; align-items: center; }
.check input { width: 1.1rem; height: 1.1rem; min-height: 0; margin: 0; }
.check label { margin: 0; font-weight: 400; }
.check .hint { flex-basis: 100%; }
fieldset { border: 0; padding: 0; margin: 0 0 .9rem; }
.plain-list { list-style: none; margin: 0; padding: 0; }
.visually-hidden { position: absolute !important; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
`;
