"""The privacy corpus: secret shapes that capture must never keep, and look-alikes
it must keep as they are. Every secret is fake, generated from a fixed seed in the
shape its issuer uses (prefix, alphabet, length), so none is a real credential.

``SECRETS``: (name, secret value, line that carries it). ``LOOKALIKES``: (name, text).
Used by tests/capture/test_capture_privacy.py and scripts/bench_capture.py.
"""

from __future__ import annotations

import base64
import random
from pathlib import Path
import string
import uuid

_rng = random.Random(20260318)
ALNUM = string.ascii_letters + string.digits
LOWER_HEX = "0123456789abcdef"
UPPER_ALNUM = string.ascii_uppercase + string.digits
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"


def _r(alphabet: str, n: int) -> str:
    # never three of a kind in a row: keeps every token free of 'xxx'/'000' runs that
    # placeholder checks would (rightly) treat as not a secret
    out: list[str] = []
    while len(out) < n:
        ch = _rng.choice(alphabet)
        if len(out) >= 2 and out[-1] == out[-2] == ch:
            continue
        out.append(ch)
    return "".join(out)


def _jwt() -> str:
    head = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
    body = base64.urlsafe_b64encode(
        f'{{"sub":"{_r(LOWER_HEX, 12)}","name":"dev","iat":1774000000}}'.encode()).decode().rstrip("=")
    return f"{head}.{body}.{_r(URLSAFE, 43)}"


def _pem(kind: str) -> str:
    body = "\n".join(_r(B64, 64) for _ in range(6))
    return f"-----BEGIN {kind}PRIVATE KEY-----\n{body}\n{_r(B64, 20)}==\n-----END {kind}PRIVATE KEY-----"


def _aws_secret() -> str:
    return _r(ALNUM + "/+", 40)


# (name, secret, template with {s} where the secret goes)
_SHAPES: list[tuple[str, str, str]] = [
    ("anthropic-api-key", "sk-ant-api03-" + _r(URLSAFE, 93) + "AA", "export ANTHROPIC_API_KEY={s}"),
    ("anthropic-admin-key", "sk-ant-admin01-" + _r(URLSAFE, 93) + "AA", "ANTHROPIC_ADMIN_KEY: {s}"),
    ("anthropic-in-json", "sk-ant-api03-" + _r(URLSAFE, 93) + "AA", '{{"apiKey": "{s}"}}'),
    ("openai-project-key", "sk-proj-" + _r(URLSAFE, 48) + "T3BlbkFJ" + _r(URLSAFE, 48), "OPENAI_API_KEY={s}"),
    ("openai-legacy-key", "sk-" + _r(ALNUM, 20) + "T3BlbkFJ" + _r(ALNUM, 20), "openai.api_key = '{s}'"),
    ("openai-svcacct-key", "sk-svcacct-" + _r(URLSAFE, 60), "key is {s} for the batch job"),
    ("deepseek-key", "sk-" + _r(LOWER_HEX, 32), "DEEPSEEK_API_KEY={s}"),
    ("github-pat-classic", "ghp_" + _r(ALNUM, 36), "git remote set-url origin https://{s}@github.com/acme/shop.git"),
    ("github-pat-fine", "github_pat_" + _r(ALNUM, 22) + "_" + _r(ALNUM, 59), "GITHUB_TOKEN={s}"),
    ("github-oauth", "gho_" + _r(ALNUM, 36), "token: {s}"),
    ("github-app-user", "ghu_" + _r(ALNUM, 36), "Authorization: token {s}"),
    ("github-app-server", "ghs_" + _r(ALNUM, 36), "GH_INSTALLATION_TOKEN={s}"),
    ("github-refresh", "ghr_" + _r(ALNUM, 76), "refresh={s}"),
    ("gitlab-pat", "glpat-" + _r(URLSAFE, 20), "CI_JOB_TOKEN={s}"),
    ("gitlab-deploy", "gldt-" + _r(URLSAFE, 20), "deploy token {s}"),
    ("aws-access-key-id", "AKIA" + _r(UPPER_ALNUM, 16), "aws_access_key_id = {s}"),
    ("aws-temp-key-id", "ASIA" + _r(UPPER_ALNUM, 16), "AccessKeyId: {s}"),
    ("aws-secret-key", _aws_secret(), "aws_secret_access_key = {s}"),
    ("aws-secret-env", _aws_secret(), "AWS_SECRET_ACCESS_KEY={s}"),
    ("slack-bot-token", "xoxb-" + _r(string.digits, 12) + "-" + _r(string.digits, 12) + "-" + _r(ALNUM, 24),
     "SLACK_BOT_TOKEN={s}"),
    ("slack-user-token", "xoxp-" + _r(string.digits, 12) + "-" + _r(string.digits, 12) + "-" +
     _r(string.digits, 12) + "-" + _r(LOWER_HEX, 32), "slack user token {s}"),
    ("slack-app-token", "xapp-1-" + _r(UPPER_ALNUM, 11) + "-" + _r(string.digits, 13) + "-" + _r(LOWER_HEX, 64),
     "SLACK_APP_TOKEN={s}"),
    ("slack-webhook", "https://hooks.slack.com/services/T" + _r(UPPER_ALNUM, 8) + "/B" + _r(UPPER_ALNUM, 8) +
     "/" + _r(ALNUM, 24), "curl -X POST {s} -d @msg.json"),
    ("stripe-live-secret", "sk_live_" + _r(ALNUM, 24), "STRIPE_SECRET_KEY={s}"),
    ("stripe-test-secret", "sk_test_" + _r(ALNUM, 24), "stripe.api_key = \"{s}\""),
    ("stripe-restricted", "rk_live_" + _r(ALNUM, 24), "restricted key {s}"),
    ("stripe-webhook", "whsec_" + _r(ALNUM, 32), "STRIPE_WEBHOOK_SECRET={s}"),
    ("google-api-key", "AIza" + _r(URLSAFE, 35), "GOOGLE_API_KEY={s}"),
    ("google-oauth-secret", "GOCSPX-" + _r(URLSAFE, 28), "client_secret: {s}"),
    ("jwt", _jwt(), "Authorization: Bearer {s}"),
    ("jwt-cookie", _jwt(), "Set-Cookie: session={s}; HttpOnly"),
    ("npm-token", "npm_" + _r(ALNUM, 36), "//registry.npmjs.org/:_authToken={s}"),
    ("pypi-token", "pypi-AgEIcHlwaS5vcmc" + _r(URLSAFE, 70), "password = {s}"),
    ("sendgrid-key", "SG." + _r(URLSAFE, 22) + "." + _r(URLSAFE, 43), "SENDGRID_API_KEY={s}"),
    ("twilio-key", "SK" + _r(LOWER_HEX, 32), "TWILIO_API_KEY={s}"),
    ("mailgun-key", "key-" + _r(ALNUM, 32), "MAILGUN_API_KEY={s}"),
    ("mailchimp-key", _r(LOWER_HEX, 32) + "-us14", "mailchimp {s}"),
    ("telegram-bot", _r(string.digits, 10) + ":AA" + _r(URLSAFE, 33), "TELEGRAM_BOT_TOKEN={s}"),
    ("huggingface-token", "hf_" + _r(ALNUM, 34), "HF_TOKEN={s}"),
    ("digitalocean-pat", "dop_v1_" + _r(LOWER_HEX, 64), "DIGITALOCEAN_TOKEN={s}"),
    ("shopify-token", "shpat_" + _r(LOWER_HEX, 32), "X-Shopify-Access-Token: {s}"),
    ("databricks-token", "dapi" + _r(LOWER_HEX, 32), "DATABRICKS_TOKEN={s}"),
    ("linear-key", "lin_api_" + _r(ALNUM, 40), "LINEAR_API_KEY={s}"),
    ("postman-key", "PMAK-" + _r(LOWER_HEX, 24) + "-" + _r(LOWER_HEX, 34), "postman {s}"),
    ("vault-token", "hvs." + _r(URLSAFE, 90), "VAULT_TOKEN={s}"),
    ("groq-key", "gsk_" + _r(ALNUM, 52), "GROQ_API_KEY={s}"),
    ("xai-key", "xai-" + _r(ALNUM, 80), "XAI_API_KEY={s}"),
    ("replicate-token", "r8_" + _r(ALNUM, 37), "REPLICATE_API_TOKEN={s}"),
    ("grafana-service-account", "glsa_" + _r(ALNUM, 32) + "_" + _r(LOWER_HEX, 8), "GRAFANA_TOKEN={s}"),
    ("sentry-token", "sntrys_" + _r(ALNUM, 60), "SENTRY_AUTH_TOKEN={s}"),
    ("notion-token", "ntn_" + _r(ALNUM, 46), "NOTION_TOKEN={s}"),
    ("supabase-token", "sbp_" + _r(LOWER_HEX, 40), "supabase login --token {s}"),
    ("doppler-token", "dp.pt." + _r(ALNUM, 43), "DOPPLER_TOKEN={s}"),
    ("square-token", "sq0atp-" + _r(URLSAFE, 22), "square {s}"),
    ("alibaba-access-key", "LTAI" + _r(ALNUM, 20), "ALIBABA_CLOUD_ACCESS_KEY_ID={s}"),
    ("tencent-secret-id", "AKID" + _r(ALNUM, 32), "TENCENTCLOUD_SECRET_ID={s}"),
    ("azure-storage-key", _r(B64, 86) + "==", "DefaultEndpointsProtocol=https;AccountName=shop;AccountKey={s};"),
    ("azure-ad-secret", _r(ALNUM, 3) + "8Q~" + _r(ALNUM + "_~.-", 34), "AZURE_CLIENT_SECRET={s}"),
    ("discord-webhook", "https://discord.com/api/webhooks/" + _r(string.digits, 18) + "/" + _r(URLSAFE, 68),
     "webhook: {s}"),
    ("age-secret-key", "AGE-SECRET-KEY-1" + "".join(_rng.choice("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L")
                                                    for _ in range(58)), "{s}"),
    ("rsa-private-key", _pem("RSA "), "{s}"),
    ("openssh-private-key", _pem("OPENSSH "), "cat ~/.ssh/id_ed25519\n{s}"),
    ("ec-private-key", _pem("EC "), "key.pem:\n{s}"),
    ("pkcs8-private-key", _pem(""), "{s}"),
    ("postgres-url-password", _r(ALNUM, 14) + "!", "DATABASE_URL=postgres://app:{s}@db.internal:5432/shop"),
    ("mysql-url-password", _r(ALNUM, 12), "mysql://root:{s}@127.0.0.1/test"),
    ("redis-url-password", _r(ALNUM, 20), "REDIS_URL=redis://default:{s}@cache:6379/0"),
    ("amqp-url-password", _r(ALNUM, 16), "amqp://guest:{s}@mq:5672/"),
    ("https-basic-url", _r(ALNUM, 18), "https://deploy:{s}@artifacts.example.com/repo"),
    ("mongodb-srv-password", _r(ALNUM, 16), "mongodb+srv://admin:{s}@cluster0.mongodb.net/app"),
    ("password-assignment", _r(ALNUM, 10) + "#7", "DB_PASSWORD={s}"),
    ("password-yaml", _r(ALNUM, 12), "password: {s}"),
    ("password-json", _r(ALNUM, 12) + "$x", '{{"password": "{s}"}}'),
    ("passwd-quoted", _r(ALNUM, 11), "passwd = \"{s}\""),
    ("secret-key-django", _r(ALNUM + "!@%^&*(-_=+)", 50), "SECRET_KEY = '{s}'"),
    ("client-secret", _r(ALNUM, 32), "client_secret={s}"),
    ("api-key-generic", _r(ALNUM, 32), "X_API_KEY: {s}"),
    ("auth-token-generic", _r(ALNUM, 40), "AUTH_TOKEN={s}"),
    ("password-cli-flag", _r(ALNUM, 14), "mysql -u root --password={s} shop"),
    ("token-cli-flag", _r(ALNUM, 30), "vercel deploy --token {s}"),
    ("bearer-opaque", _r(ALNUM, 40), "curl -H 'Authorization: Bearer {s}' https://api.internal"),
    ("basic-auth-header", base64.b64encode(f"admin:{_r(ALNUM, 14)}".encode()).decode(),
     "Authorization: Basic {s}"),
    ("chinese-password", _r(ALNUM, 10) + "!9", "数据库密码：{s}"),
    ("chinese-secret-key", _r(ALNUM, 24), "密钥={s}"),
    ("private-key-assignment", _r(B64, 44), "PRIVATE_KEY={s}"),
    ("access-key-assignment", _r(ALNUM, 32), "ACCESS_KEY={s}"),
    ("credentials-json", _r(ALNUM, 24), '{{"credentials": "{s}"}}'),
]

SECRETS: list[tuple[str, str, str]] = [(name, s, template.format(s=s)) for name, s, template in _SHAPES]

_PNG = base64.b64encode(bytes(_rng.randrange(256) for _ in range(300))).decode()

LOOKALIKES: list[tuple[str, str]] = [
    ("git-sha", "commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f"),
    ("git-sha-short", "fixed in a1b2c3d, reverted in 9f8e7d6"),
    ("git-log", "9c0f5d2e8b7a6c4d3e2f1a0b9c8d7e6f5a4b3c2d Merge pull request #42 from acme/fix-currency"),
    ("uuid", "session 123e4567-e89b-12d3-a456-426614174000 resumed"),
    ("uuid-list", f"ids: {uuid.UUID(int=_rng.getrandbits(128))}, {uuid.UUID(int=_rng.getrandbits(128))}"),
    ("sha256-digest", "sha256:" + "".join(_rng.choice(LOWER_HEX) for _ in range(64))),
    ("docker-image-digest", "image: python@sha256:" + "".join(_rng.choice(LOWER_HEX) for _ in range(64))),
    ("base64-png", f"![chart](data:image/png;base64,{_PNG})"),
    ("base64-blob", "payload: " + base64.b64encode(b"hello world, this is not a secret at all").decode()),
    ("chinese-decision", "我们决定使用 PostgreSQL 作为主数据库，因为需要 JSONB 支持。"),
    ("chinese-status", "已完成：修复了结账页面的货币错误；下一步：补充单元测试。"),
    ("chinese-password-talk", "密码重置流程需要发送邮件验证码"),
    ("english-token-talk", "the tokenizer splits each token; the token count is 1234"),
    ("password-placeholder", "DB_PASSWORD=${DB_PASSWORD}"),
    ("password-env-ref", "password = os.environ['DB_PASSWORD']"),
    ("password-template", "password: {{ vault_db_password }}"),
    ("password-angle", "API_KEY=<your-api-key>"),
    ("password-masked", "password: ********"),
    ("password-word", "password: required"),
    ("secret-python-attr", "secret = self.secret_store"),
    ("token-function", "token = get_token()"),
    ("url-without-password", "https://github.com/acme/shop.git and postgres://db.internal:5432/shop"),
    ("url-user-only", "ssh://git@github.com/acme/shop.git"),
    ("file-path", "/home/dev/shop-api/shop/checkout.py:42"),
    ("semver", "upgraded from 1.2.3 to 2.0.0-rc.1+build.5"),
    ("ipv4", "listening on 10.0.0.12:8443"),
    ("email", "reported by alice@example.com"),
    ("css-hex", "color: #3f2a9c; background: #ffffff"),
    ("hex-color-list", "palette 0x3f2a9c 0xff00ff"),
    ("npm-integrity", "integrity sha512-" + base64.b64encode(bytes(_rng.randrange(256) for _ in range(64))).decode()),
    ("stack-trace", "TypeError: Cannot read properties of undefined (reading 'date')"),
    ("test-output", "4 passed, 1 failed in 0.31s"),
    ("timestamp", "2026-03-18T10:00:00+08:00"),
    ("markdown", "- [ ] Add a test for orders without a currency"),
    ("openai-model-name", "model=gpt-4o-mini temperature=0.2"),
    ("sk-short-word", "sk-learn is a typo for scikit-learn"),
    ("aws-arn", "arn:aws:iam::123456789012:role/deploy"),
    ("k8s-secret-name", "secretName: shop-tls"),
    ("env-key-names-only", "needs OPENAI_API_KEY and GITHUB_TOKEN set"),
    ("mixed-language", "上周 deploy 的 PostgreSQL 服务在 10.0.0.12 上"),
]


# --------------------------------------------------------------------------- finding them

SESSION = "9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d"


CWD = "/home/dev/vault-app"


def needles(secret: str) -> list[str]:
    """What must not appear: the secret, or for a PEM block each of its body lines."""
    parts = [p for p in secret.splitlines() if len(p) >= 16 and "-----" not in p]
    return parts or [secret]


def scan(root: Path, extra_texts: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    """(secret name, where) for every secret found in any file under root or in the texts."""
    blobs = [(str(p), p.read_bytes()) for p in root.rglob("*") if p.is_file()]
    blobs += [(f"output#{i}", t.encode()) for i, t in enumerate(extra_texts)]
    found = []
    for name, secret, _line in SECRETS:
        for needle in needles(secret):
            raw = needle.encode()
            for where, blob in blobs:
                if raw in blob:
                    found.append((name, where))
    return found


def hook(event: str, **fields) -> dict:
    return {"session_id": SESSION, "transcript_path": f"/home/dev/.claude/projects/x/{SESSION}.jsonl",
            "cwd": CWD, "hook_event_name": event, **fields}


def planted_hook_payloads() -> list[dict]:
    """Every secret in a prompt, a command, a tool output, a file written and a file read."""
    payloads = [hook("SessionStart", source="startup")]
    for i, (name, _secret, line) in enumerate(SECRETS):
        payloads.append(hook("UserPromptSubmit", prompt=f"Step {i}: configure {name} with\n{line}"))
        payloads.append(hook("PostToolUse", tool_name="Bash", tool_use_id=f"toolu_b{i}",
                             tool_input={"command": f"printf '%s' '{line}' >> deploy.env"},
                             tool_response={"stdout": f"wrote\n{line}\n", "stderr": "", "exitCode": 0}))
        payloads.append(hook("PostToolUse", tool_name="Write", tool_use_id=f"toolu_w{i}",
                             tool_input={"file_path": f"{CWD}/config/{i}.yaml", "content": f"# cfg\n{line}\n"},
                             tool_response={"filePath": f"{CWD}/config/{i}.yaml"}))
        payloads.append(hook("PostToolUse", tool_name="Read", tool_use_id=f"toolu_r{i}",
                             tool_input={"file_path": f"{CWD}/config/{i}.yaml"},
                             tool_response={"type": "text", "file": {"content": f"# cfg\n{line}\n"}}))
        payloads.append(hook("Stop", stop_hook_active=False,
                             last_assistant_message=f"Done: configured it.\n- Fixed: {line}\n\nNext steps:\n- rotate {line}"))
    payloads.append(hook("SessionEnd", reason="prompt_input_exit"))
    return payloads
