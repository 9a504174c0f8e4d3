// ---- appended by bench/miniwob (a served copy only; the miniwob package is untouched) ----
// ?argus_seed=S starts the episode on load, seeded with S, the way BrowserGym's MiniWoB
// task does it (the human display — utterance, timer, reward, click canvas, START cover —
// taken out of the DOM; the utterance stays readable through core.getUtterance()).
// ?argus_ep=E names the episode in the reward beacon that core.endEpisode sends.
core.ARGUS_SEED = core.QueryString.argus_seed !== undefined ? Number(core.QueryString.argus_seed) : null;
core.ARGUS_EP = core.QueryString.argus_ep !== undefined ? core.QueryString.argus_ep : null;
core.argusBeacon = function (reward, reason) {
  try {
    navigator.sendBeacon('/bench/reward', JSON.stringify({
      ep: core.ARGUS_EP, page: location.pathname, raw: reward,
      reason: reason === undefined || reason === null ? null : String(reason)
    }));
  } catch (e) { /* the harness then reads no reward: the episode counts as failed */ }
};
if (core.ARGUS_SEED !== null) {
  window.addEventListener('load', function () {
    setTimeout(function () {
      var ids = ['reward-display', 'click-canvas', 'sync-task-cover'];
      var stored = {};
      var queryCopy = null;
      var removeDisplay = function () {
        core.clearTimer();
        document.body.removeEventListener('click', core.canvasDrawClick);
        queryCopy = document.getElementById('query').cloneNode(true);
        document.getElementById('query').innerHTML = '';
        for (var i = 0; i < ids.length; i++) {
          var el = document.getElementById(ids[i]);
          if (el) { el.remove(); stored[ids[i]] = el; }
        }
      };
      var bringBack = function () {
        document.getElementById('query').innerHTML = queryCopy.innerHTML;
        for (var id in stored) { document.body.appendChild(stored[id]); }
        core.createDisplay();
      };
      var getUtterance0 = core.getUtterance, end0 = core.endEpisode, start0 = core.startEpisodeReal;
      core.getUtterance = function () { bringBack(); var u = getUtterance0(); removeDisplay(); return u; };
      core.endEpisode = function (r, t, why) { bringBack(); end0(r, t, why); removeDisplay(); };
      core.startEpisodeReal = function () { bringBack(); start0(); removeDisplay(); };
      removeDisplay();
      core.startEpisodeReal();
      window.ARGUS_STARTED = true;
    }, 0);
  });
}
