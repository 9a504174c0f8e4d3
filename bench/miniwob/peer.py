"""The peer: BrowserGym's GenericAgent (PyPI agentlab 0.4.2 + browsergym-miniwob 0.14.3), run on
the same episodes, with the same model endpoint, as Argus (FOR MEASURING ONLY).

What is GenericAgent's own and what is ours:
- agent: `agentlab.agents.generic_agent.GenericAgent`, flags `FLAGS_GPT_4o` (the flags of
  agentlab's default GenericAgent configs, e.g. AGENT_4o_MINI), adjusted by
  `GenericAgentArgs.set_benchmark(<BrowserGym's "miniwob" benchmark>)` exactly as agentlab does
  for a MiniWoB study (HTML on, `miniwob_all` action set, retry_with_force); temperature 0
  (agentlab's reproducibility mode); `max_new_tokens` bounded (default 512).
- env: `gym.make("browsergym/miniwob.<task>")` with the benchmark's max_steps (10) and
  `env.reset(seed=N)`; the loop is `ExpArgs.run`'s: preprocess obs → get_action → step until
  terminated / truncated.
- ours: the chat model (agentlab's own `ChatModel` on the OpenAI client, pointed at the given
  base URL, with usage + cached tokens + latency recorded per call), and a stand-in for
  tiktoken's encodings (they download on first use, impossible here): ~4 characters a token,
  used only by agentlab's prompt-fitting, never sent anywhere.
"""
import os
import re
import time


class _StandInEncoding:
    """tiktoken-shaped: encode → chunks of ≤4 non-space chars (with their leading space)."""

    name = "argus-bench-stand-in"
    _re = re.compile(r"\s*\S{1,4}|\s+")

    def encode(self, text, *a, **kw):
        return self._re.findall(text)

    def decode(self, tokens, *a, **kw):
        return "".join(tokens)


def _patch_tiktoken():
    import tiktoken

    enc = _StandInEncoding()
    tiktoken.encoding_for_model = lambda *a, **kw: enc
    tiktoken.get_encoding = lambda *a, **kw: enc


def _make_model_args(base_url, model, max_new_tokens):
    from dataclasses import dataclass

    from agentlab.llm.base_api import BaseModelArgs
    from agentlab.llm.chat_api import ChatModel
    from agentlab.llm.llm_utils import AIMessage

    class MeasuredChatModel(ChatModel):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.usage = []

        def __call__(self, messages, n_samples=1, temperature=None):
            t0 = time.time()
            c = self.client.chat.completions.create(
                model=self.model_name,
                messages=messages,
                temperature=self.temperature if temperature is None else temperature,
                max_tokens=self.max_tokens,
            )
            extra = getattr(c, "model_extra", None) or {}
            cached = (extra.get("timings") or {}).get("cache_n") or 0
            details = getattr(c.usage, "prompt_tokens_details", None)
            if not cached and details is not None:
                cached = getattr(details, "cached_tokens", 0) or 0
            self.usage.append(
                {
                    "prompt_tokens": c.usage.prompt_tokens,
                    "completion_tokens": c.usage.completion_tokens,
                    "cached_tokens": cached,
                    "latency_s": time.time() - t0,
                }
            )
            self.retries, self.success, self.error_types = 1, True, []
            return AIMessage(c.choices[0].message.content or "")

    @dataclass
    class LocalModelArgs(BaseModelArgs):
        base_url: str = ""

        def make_model(self):
            return MeasuredChatModel(
                model_name=self.model_name,
                api_key=os.environ.get("ARGUS_MODEL_API_KEY") or "none",
                temperature=self.temperature,
                max_tokens=self.max_new_tokens,
                max_retry=1,
                client_args={"base_url": self.base_url, "timeout": 600},
            )

    return LocalModelArgs(
        model_name=model,
        base_url=base_url,
        max_total_tokens=8192,
        max_input_tokens=8192 - max_new_tokens,
        max_new_tokens=max_new_tokens,
        temperature=0.0,
    )


def run_episodes(args, base, episodes, rewards, log):
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ["MINIWOB_URL"] = f"{base}/miniwob/"
    _patch_tiktoken()
    from copy import deepcopy

    import browsergym.miniwob  # noqa: F401  (registers the envs)
    import gymnasium as gym
    from agentlab.agents.generic_agent.agent_configs import FLAGS_GPT_4o
    from agentlab.agents.generic_agent.generic_agent import GenericAgentArgs
    from browsergym.experiments.benchmark import DEFAULT_BENCHMARKS

    bench = DEFAULT_BENCHMARKS["miniwob"]()
    max_steps = bench.env_args_list[0].max_steps
    rows = []
    for ep in episodes:
        agent_args = GenericAgentArgs(
            chat_model_args=_make_model_args(args.model_url, args.model, args.peer_max_new_tokens),
            flags=deepcopy(FLAGS_GPT_4o),
        )
        agent_args.set_benchmark(bench, demo_mode=False)
        agent_args.set_reproducibility_mode()
        agent = agent_args.make_agent()
        rewards.current_peer_ep = f"peer:{ep['id']}"
        env = gym.make(
            f"browsergym/miniwob.{ep['task']}",
            disable_env_checker=True,
            max_episode_steps=max_steps,
            headless=True,
            wait_for_user_message=False,
            action_mapping=agent.action_set.to_python_code,
        )
        t0 = time.time()
        steps, err, env_reward, goal = 0, None, 0.0, None
        try:
            obs, info = env.reset(seed=ep["seed"])
            goal = obs.get("goal")
            if goal != ep["utterance"]:
                log(f"peer {ep['id']}: goal {goal!r} differs from the probed utterance {ep['utterance']!r}")
            obs = agent.obs_preprocessor(obs)
            terminated = truncated = False
            while not (terminated or truncated):
                if time.time() - t0 > args.episode_timeout_s:
                    err = f"episode timeout ({args.episode_timeout_s} s)"
                    break
                action, agent_info = agent.get_action(obs)
                if action is None:
                    err = "the agent returned no action"
                    break
                obs, env_reward, terminated, truncated, info = env.step(action)
                steps += 1
                if obs.get("last_action_error"):
                    log(f"peer {ep['id']} step {steps}: {action!r} → {obs['last_action_error'][:160]}")
                else:
                    log(f"peer {ep['id']} step {steps}: {action!r}")
                obs = agent.obs_preprocessor(obs)
        except Exception as e:  # the row says what broke; the table goes on
            err = f"{type(e).__name__}: {e}"
            log(f"peer {ep['id']}: {err}")
        secs = time.time() - t0
        try:
            env.close()
        except Exception:
            pass
        time.sleep(0.3)  # the beacon may still be in flight
        r = rewards.get(f"peer:{ep['id']}")
        u = agent.chat_llm.usage
        rows.append(
            {
                "agent": "peer",
                "episode": ep["id"],
                "task": ep["task"],
                "seed": ep["seed"],
                "run_id": None,
                "status": err or ("done" if steps else "no steps"),
                "error": err,
                "raw_reward": None if r is None else r.get("raw"),
                "env_reward": env_reward,
                "success": bool(r and (r.get("raw") or 0) > 0),
                "steps": steps,
                "model_calls": len(u),
                "prompt_tokens": sum(x["prompt_tokens"] for x in u),
                "cached_tokens": sum(x["cached_tokens"] for x in u),
                "completion_tokens": sum(x["completion_tokens"] for x in u),
                "model_s": sum(x["latency_s"] for x in u),
                "seconds": secs,
            }
        )
        log(f"peer {ep['id']}: reward {rows[-1]['raw_reward']} in {secs:.1f} s, {steps} steps")
    return rows
