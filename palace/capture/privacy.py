"""Privacy before anything is written: ``<private>`` spans removed, secrets replaced.

Every text that capture keeps passes through ``Redactor.clean`` first, so a secret
never reaches a Markdown file, the index, the journal, a vector, the spool of live
events, a log line or an error message.

A secret becomes ``[REDACTED:<rule>:<8 hex>]``. The hex is a keyed hash (the key is
random and lives in the workspace), so the same secret is recognisably the same
across memories, while a short hash of a weak password cannot be checked against
a guess list by someone who reads the memories but not the key.

Two detectors run, and only the span a rule matched is replaced:
* rules of our own (``RULES``), modelled on gitleaks' rule set: provider tokens
  with a recognisable prefix, private key blocks, passwords in URLs, secrets
  assigned to secret-sounding names;
* detect-secrets' plugins through ``analyze_line`` (one line at a time, no
  verification requests: a secret is never sent anywhere to check it). Its
  entropy-only plugins are left out: git SHAs, UUIDs and base64 images are
  high-entropy too, and must stay readable.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets as _secrets
from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import Path
from typing import Any, Iterable, Sequence

from palace.store.atomic import write_once

MARKER_RE = re.compile(r"\[REDACTED:[a-z0-9-]+:[0-9a-f]{8}\]")
PRIVATE_RE = re.compile(r"<private>.*?(?:</private>|\Z)", re.IGNORECASE | re.DOTALL)
KEY_FILE = "redaction.key"


@dataclass(frozen=True)
class Rule:
    name: str
    pattern: re.Pattern[str]
    group: int = 0          # the part of the match that is the secret
    # lower-case substrings one of which any match contains: a text without them skips
    # the regex (a substring test is ~50x cheaper than a regex scan)
    hints: tuple[str, ...] | None = None


def _rule(name: str, pattern: str, group: int = 0, flags: int = 0, *, overlapping: bool = False) -> Rule:
    if overlapping:
        # a lookahead finds a match at every position, so "label: password: s3cret" is
        # not hidden behind the first, wrong, match "label: password:"
        if pattern.startswith("(?i)"):
            pattern, flags = pattern[4:], flags | re.IGNORECASE
        pattern = f"(?={pattern})"
    return Rule(name, re.compile(pattern, flags), group, _HINTS.get(name))


_HINTS: dict[str, tuple[str, ...]] = {
    "private-key": ("private key",), "putty-private-key": ("putty-user-key",),
    "age-secret-key": ("age-secret-key",), "anthropic-api-key": ("sk-ant-",), "openai-api-key": ("sk-",),
    "github-token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    "gitlab-token": ("glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "glsoat-", "glft-", "glimt-",
                     "glagent-"),
    "aws-access-key": ("akia", "asia", "abia", "acca", "a3t"), "aws-secret-key": ("aws",),
    "slack-token": ("xox",), "slack-webhook": ("hooks.slack.com",), "discord-webhook": ("discord",),
    "stripe-key": ("_live_", "_test_"), "stripe-webhook-secret": ("whsec_",),
    "google-api-key": ("aiza",), "google-oauth-secret": ("gocspx-",), "jwt": ("eyj",),
    "npm-token": ("npm_",), "pypi-token": ("pypi-age",), "sendgrid-key": ("sg.",),
    "twilio-key": ("sk",), "mailgun-key": ("key-",), "mailchimp-key": ("-us",),
    "telegram-bot-token": (":aa",), "huggingface-token": ("hf_",), "digitalocean-token": ("_v1_",),
    "shopify-token": ("shp",), "databricks-token": ("dapi",), "linear-api-key": ("lin_api_",),
    "postman-key": ("pmak-",), "vault-token": ("hvs.", "hvb."), "groq-api-key": ("gsk_",),
    "xai-api-key": ("xai-",), "replicate-token": ("r8_",), "grafana-token": ("glsa_", "glc_"),
    "sentry-token": ("sntr",), "notion-token": ("secret_", "ntn_"), "supabase-token": ("sbp_",),
    "doppler-token": ("dp.",), "square-token": ("sq0",), "alibaba-access-key": ("ltai",),
    "tencent-secret-id": ("akid",), "azure-ad-client-secret": ("q~",),
    "azure-storage-key": ("accountkey=",), "facebook-token": ("eaa",), "dropbox-token": ("sl.",),
    "password-in-url": ("://",), "authorization-header": ("bearer", "token"),
    "basic-auth-header": ("basic",),
    "secret-assignment": ("pass", "pwd", "secret", "token", "api", "key", "credential",
                          "密码", "口令", "密钥"),
    "cli-password-flag": ("--pass", "--token", "--api-key", "--secret"),
}

# Placeholders and references are not secrets: "${DB_PASSWORD}", "<your-token>", "xxxx".
_PLACEHOLDER = re.compile(
    r"^(?:\$\{?[A-Za-z_]|\{\{|<[^>]*>?$|%\(|%s|\*+$|x+$|\.\.\.|null$|none$|true$|false$|"
    r"undefined$|changeme$|example|your[_-]|process\.env|os\.environ|env\[|getenv|\[REDACTED)",
    re.IGNORECASE)

_SECRET_NAME = (r"(?<![A-Za-z])(?:password|passwd|passphrase|pwd|secret|token|api[_-]?key|apikey|"
                r"access[_-]?key|private[_-]?key|auth[_-]?key|credentials?|密码|口令|密钥)"
                r"(?:[_-][A-Za-z]{1,10}){0,3}")

RULES: tuple[Rule, ...] = (
    # a whole PEM block; an excerpt cut before its END line still loses its body
    _rule("private-key", r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
                         r"[\s\S]*?(?:-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|\Z)"),
    _rule("putty-private-key", r"PuTTY-User-Key-File-\d:[\s\S]*?(?:Private-MAC: ?[0-9a-f]+|\Z)"),
    _rule("age-secret-key", r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}"),
    _rule("anthropic-api-key", r"\bsk-ant-(?:api|admin|oat|sid)?\d{0,2}-?[A-Za-z0-9_\-]{20,}"),
    _rule("openai-api-key", r"\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_\-]{20,}"),
    _rule("github-token", r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})"),
    _rule("gitlab-token", r"\bgl(?:pat|dt|rt|ptt|cbt|soat|ft|imt|agent)-[A-Za-z0-9_\-]{20,}"),
    _rule("aws-access-key", r"\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b"),
    _rule("aws-secret-key", r"(?i)aws.{0,20}?(?:secret|private)?.{0,10}?(?:key|token).{0,5}?"
                            r"[\"'\s:=]{1,5}([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])", 1),
    _rule("slack-token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    _rule("slack-webhook", r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_+-]{20,}"),
    _rule("discord-webhook", r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]{30,}"),
    _rule("stripe-key", r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"),
    _rule("stripe-webhook-secret", r"\bwhsec_[A-Za-z0-9]{24,}"),
    _rule("google-api-key", r"\bAIza[0-9A-Za-z_\-]{35}"),
    _rule("google-oauth-secret", r"\bGOCSPX-[A-Za-z0-9_\-]{28}"),
    _rule("jwt", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    _rule("npm-token", r"\bnpm_[A-Za-z0-9]{36}\b"),
    _rule("pypi-token", r"\bpypi-AgE[A-Za-z0-9_\-]{50,}"),
    _rule("sendgrid-key", r"\bSG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}"),
    _rule("twilio-key", r"\bSK[0-9a-fA-F]{32}\b"),
    _rule("mailgun-key", r"\bkey-[0-9a-zA-Z]{32}\b"),
    _rule("mailchimp-key", r"\b[0-9a-f]{32}-us\d{1,2}\b"),
    _rule("telegram-bot-token", r"\b\d{8,10}:AA[0-9A-Za-z_\-]{33}\b"),
    _rule("huggingface-token", r"\bhf_[A-Za-z0-9]{34,}"),
    _rule("digitalocean-token", r"\bdo[opr]_v1_[a-f0-9]{64}\b"),
    _rule("shopify-token", r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b"),
    _rule("databricks-token", r"\bdapi[a-f0-9]{32}(?:-\d)?\b"),
    _rule("linear-api-key", r"\blin_api_[A-Za-z0-9]{40}\b"),
    _rule("postman-key", r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b"),
    _rule("vault-token", r"\bhv[sb]\.[A-Za-z0-9_\-]{24,}"),
    _rule("groq-api-key", r"\bgsk_[A-Za-z0-9]{48,}"),
    _rule("xai-api-key", r"\bxai-[A-Za-z0-9]{60,}"),
    _rule("replicate-token", r"\br8_[A-Za-z0-9]{37}\b"),
    _rule("grafana-token", r"\b(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}={0,2})"),
    _rule("sentry-token", r"\bsntr[ysu]_[A-Za-z0-9+/=_\-]{40,}"),
    _rule("notion-token", r"\b(?:secret_[A-Za-z0-9]{43}|ntn_[A-Za-z0-9]{40,})\b"),
    _rule("supabase-token", r"\bsbp_[a-f0-9]{40}\b"),
    _rule("doppler-token", r"\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}\b"),
    _rule("square-token", r"\bsq0(?:atp|csp)-[0-9A-Za-z_\-]{22,43}"),
    _rule("alibaba-access-key", r"\bLTAI[A-Za-z0-9]{12,20}\b"),
    _rule("tencent-secret-id", r"\bAKID[A-Za-z0-9]{32}\b"),
    _rule("azure-ad-client-secret", r"(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}"),
    _rule("azure-storage-key", r"(?i)AccountKey=([A-Za-z0-9+/]{86}==)", 1),
    _rule("facebook-token", r"\bEAA[A-Za-z0-9]{90,}"),
    _rule("dropbox-token", r"\bsl\.[A-Za-z0-9_\-]{130,}"),
    _rule("password-in-url", r"\b[a-zA-Z][a-zA-Z0-9+.-]{1,20}://[^/\s:@\"']{1,64}:([^/\s@\"']{1,128})@", 1),
    _rule("authorization-header", r"(?i)\b(?:bearer|token)\s+([A-Za-z0-9\-._~+/]{20,}=*)", 1),
    _rule("basic-auth-header", r"(?i)\bbasic\s+([A-Za-z0-9+/]{16,}={0,2})(?![A-Za-z0-9+/=])", 1),
    # NAME=value, "name": "value", name: value — the value only, and not a placeholder
    _rule("secret-assignment",
          r"(?i)" + _SECRET_NAME + r"[\"']?\s{0,3}(?:=|:|：|=>)\s{0,3}[\"'`]?([^\s\"'`,;)}\]]{6,200})", 1,
          overlapping=True),
    _rule("cli-password-flag",
          r"(?:--password|--passwd|--token|--api-key|--secret)[= ]\s?[\"']?([^\s\"']{6,200})", 1,
          overlapping=True),
)

# detect-secrets plugins whose matches we trust (entropy-only and IP plugins left out).
DETECT_SECRETS_PLUGINS = (
    ("artifactory", "ArtifactoryDetector"), ("aws", "AWSKeyDetector"),
    ("azure_storage_key", "AzureStorageKeyDetector"), ("basic_auth", "BasicAuthDetector"),
    ("cloudant", "CloudantDetector"), ("discord", "DiscordBotTokenDetector"),
    ("github_token", "GitHubTokenDetector"), ("gitlab_token", "GitLabTokenDetector"),
    ("ibm_cloud_iam", "IbmCloudIamDetector"), ("ibm_cos_hmac", "IbmCosHmacDetector"),
    ("jwt", "JwtTokenDetector"), ("keyword", "KeywordDetector"), ("mailchimp", "MailchimpDetector"),
    ("npm", "NpmDetector"), ("openai", "OpenAIDetector"), ("private_key", "PrivateKeyDetector"),
    ("pypi_token", "PypiTokenDetector"), ("sendgrid", "SendGridDetector"), ("slack", "SlackDetector"),
    ("softlayer", "SoftlayerDetector"), ("square_oauth", "SquareOAuthDetector"),
    ("stripe", "StripeDetector"), ("telegram_token", "TelegramBotTokenDetector"),
    ("twilio", "TwilioKeyDetector"),
)
_VERIFY_FILTER = "detect_secrets.filters.common.is_ignored_due_to_verification_policies"
# A line without any of these cannot match a plugin: skip the plugins for it (speed).
_PLUGIN_HINT = re.compile(
    r"(?i)pass|secret|token|key|pwd|auth|cred|api|://|AKIA|ASIA|xox|gh[pousr]_|glpat|eyJ|sk_|"
    r"rk_|sk-|npm_|pypi-|SG\.|BEGIN|discord|telegram|cloudant|artifactory|AKC|AP\d|softlayer|"
    r"ibm|sq0|mailchimp|-us\d|\d{8,10}:")


def _load_plugins() -> list[Any]:
    import importlib

    from detect_secrets.settings import get_settings

    # never let a plugin send a found secret over the network to "verify" it
    get_settings().filters.pop(_VERIFY_FILTER, None)
    # the modules by name: discovering them through detect-secrets' registry imports
    # every plugin and costs a hook process ~0.1 s more
    plugins = []
    for module, name in DETECT_SECRETS_PLUGINS:
        plugins.append(getattr(importlib.import_module(f"detect_secrets.plugins.{module}"), name)())
    return plugins


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "secret"


def load_key(folder: Path) -> bytes:
    """The workspace's redaction key, created on first use (0600)."""
    path = folder / KEY_FILE
    try:
        return bytes.fromhex(path.read_text().strip())
    except (OSError, ValueError):
        pass
    folder.mkdir(parents=True, exist_ok=True)
    # first writer wins; a racing process (or thread) reads the winner's key
    write_once(path, _secrets.token_bytes(32).hex())
    return bytes.fromhex(path.read_text().strip())


@dataclass
class RedactionStats:
    private_spans: int = 0
    secrets: int = 0
    by_rule: dict[str, int] = field(default_factory=dict)

    def add(self, rule: str) -> None:
        self.secrets += 1
        self.by_rule[rule] = self.by_rule.get(rule, 0) + 1


class Redactor:
    """Removes private spans and replaces secrets; pure apart from the plugins' state."""

    def __init__(self, key: bytes, *, use_detect_secrets: bool = True):
        self.key = key
        self.plugins = _load_plugins() if use_detect_secrets else []
        self.stats = RedactionStats()

    def marker(self, rule: str, secret: str) -> str:
        digest = hmac.new(self.key, secret.encode("utf-8", "surrogatepass"), hashlib.sha256)
        return f"[REDACTED:{rule}:{digest.hexdigest()[:8]}]"

    # -- private spans ------------------------------------------------------------

    def strip_private(self, text: str) -> str:
        if "<private" not in text.lower():
            return text
        found = len(PRIVATE_RE.findall(text))
        self.stats.private_spans += found
        return PRIVATE_RE.sub("", text)

    # -- secrets ------------------------------------------------------------------

    def _spans(self, text: str, filename: str) -> list[tuple[int, int, str]]:
        spans: list[tuple[int, int, str]] = []
        lower = text.lower()
        for rule in RULES:
            if rule.hints is not None and not any(h in lower for h in rule.hints):
                continue
            for match in rule.pattern.finditer(text):
                start, end = match.span(rule.group)
                value = match.group(rule.group)
                if start == end or (rule.name in ("secret-assignment", "cli-password-flag",
                                                  "password-in-url", "authorization-header")
                                    and not _looks_secret(value)):
                    continue
                spans.append((start, end, rule.name))
        if self.plugins:
            offset = 0
            for line in text.split("\n"):
                if len(line) >= 8 and _PLUGIN_HINT.search(line):
                    spans.extend((offset + s, offset + e, r) for s, e, r in self._plugin_spans(line, filename))
                offset += len(line) + 1
        return spans

    def _plugin_spans(self, line: str, filename: str) -> Iterable[tuple[int, int, str]]:
        for plugin in self.plugins:
            try:
                found = plugin.analyze_line(filename=filename, line=line, line_number=0)
            except Exception:  # a plugin's bug must not stop capture, nor echo the line
                continue
            for secret in found:
                value = secret.secret_value
                if not value or len(value) < 6 or not _looks_secret(value):
                    continue
                rule = _slug(plugin.secret_type)
                start = line.find(value)
                while start != -1:
                    yield start, start + len(value), rule
                    start = line.find(value, start + len(value))

    def redact_rules(self, text: str, names: Sequence[str]) -> str:
        """Only the named rules (multi-line ones, before a long text is cut to lines)."""
        spans: list[tuple[int, int, Any]] = []
        for rule in RULES:
            if rule.name in names:
                spans.extend((*m.span(rule.group), rule.name) for m in rule.pattern.finditer(text))
        return self._apply(text, spans)

    def redact(self, text: str, *, filename: str = "capture.txt") -> str:
        if not text:
            return text
        return self._apply(text, self._spans(text, filename))

    def _apply(self, text: str, spans: list[tuple[int, int, str]]) -> str:
        if not spans:
            return text
        protected = [m.span() for m in MARKER_RE.finditer(text)]
        # longest first wins an overlap; then apply from the end so offsets stay valid
        spans.sort(key=lambda s: (-(s[1] - s[0]), s[0]))
        chosen: list[tuple[int, int, str]] = []
        for span in spans:
            if any(span[0] < e and s < span[1] for s, e in protected):
                continue
            if any(span[0] < e and s < span[1] for s, e, _ in chosen):
                continue
            chosen.append(span)
        out = text
        for start, end, rule in sorted(chosen, reverse=True):
            self.stats.add(rule)
            out = out[:start] + self.marker(rule, text[start:end]) + out[end:]
        return out

    def clean(self, text: str | None, *, filename: str = "capture.txt") -> str:
        """Private spans out, secrets replaced. Use on every text before it is kept."""
        if not text:
            return text or ""
        return self.redact(self.strip_private(text), filename=filename)

    def clean_value(self, value: Any) -> Any:
        """``clean`` over every string inside a JSON-like value (keys included)."""
        if isinstance(value, str):
            return self.clean(value)
        if isinstance(value, dict):
            return {self.clean(str(k)): self.clean_value(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.clean_value(v) for v in value]
        return value


def _looks_secret(value: str) -> bool:
    """A value assigned to a secret-sounding name that is really a secret: not a
    placeholder, not a plain word, not a number."""
    value = value.strip().strip("\"'`")
    if value.endswith((":", "=", "：")):  # a label ("password:"), the secret comes after it
        return False
    if len(value) < 6 or _PLACEHOLDER.search(value) or MARKER_RE.search(value):
        return False
    if value.isdigit() or re.fullmatch(r"[a-z]+", value) and len(value) < 10:
        return False
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*\(.*", value):  # a function call: get_token()
        return False
    if re.fullmatch(r"[a-z_]+(?:\.[a-z_]+)+", value):        # an attribute path: self.token
        return False
    return True


# --------------------------------------------------------------------------- exclusions

def split_patterns(raw: str | Sequence[str] | None) -> tuple[str, ...]:
    if raw is None:
        return ()
    if isinstance(raw, str) and raw.strip().lower() in ("none", "-"):
        return ()  # "none": switch off a default list (an empty variable means the default)
    items = raw.split(",") if isinstance(raw, str) else list(raw)
    return tuple(p.strip() for p in items if p and p.strip())


@dataclass(frozen=True)
class Exclusions:
    """What the user asked never to capture (MEMORY_CAPTURE_EXCLUDE_*), as globs."""

    tools: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()
    projects: tuple[str, ...] = ()

    @classmethod
    def from_settings(cls, settings: Any) -> "Exclusions":
        return cls(tools=split_patterns(getattr(settings, "capture_exclude_tools", None)),
                   paths=split_patterns(getattr(settings, "capture_exclude_paths", None)),
                   projects=split_patterns(getattr(settings, "capture_exclude_projects", None)))

    def tool(self, name: str | None) -> bool:
        return name is not None and any(fnmatch(name.lower(), p.lower()) for p in self.tools)

    def path(self, path: str | None) -> bool:
        if not path:
            return False
        norm = path.replace("\\", "/")
        base = norm.rsplit("/", 1)[-1]
        return any(fnmatch(norm, p) or fnmatch(base, p) for p in self.paths)

    def project(self, cwd: str | None, project: str | None = None) -> bool:
        if not self.projects:
            return False
        names = [n for n in (cwd, project, (cwd or "").rstrip("/").rsplit("/", 1)[-1]) if n]
        return any(fnmatch(n, p) for n in names for p in self.projects)
