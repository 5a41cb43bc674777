"""A Segment-spec Python library, unchanged, sending the scenario of test/support/segment-scenario.ts.

Run by test/clients/segment-python.integration.test.ts in the project's test venv
(deploy/local/install-test-deps.sh): argv is the library (segment or rudder), the ingest URL, the write
key, the run id and the number of people. Prints STARTED once the first calls were acknowledged (the
test then kills the ingest and starts it again) and keeps sending meanwhile; at the end prints one JSON line
{"message_ids": [...], "errors": [...]}.
"""
import json
import sys
import threading

lib, host, key, run, people = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
if lib == 'segment':
    from segment.analytics.client import Client
else:
    from rudderstack.analytics.client import Client

errors = []
acknowledged = threading.Event()


def on_error(err, batch):
    errors.append(f'{err} ({len(batch)} messages)')


# Small batches and short waits so the kill falls between many requests; retries enough to outlast a restart.
client = Client(write_key=key, host=host, on_error=on_error, upload_size=20, upload_interval=0.1, max_retries=12, timeout=10)
ids = []


def sent(result):
    ok, msg = result
    if not ok:
        errors.append('not queued: ' + msg.get('messageId', '?'))
    ids.append(msg['messageId'])


for i in range(people):
    anon, user, old, group = f'{run}-anon-{i}', f'{run}-user-{i}', f'{run}-old-{i}', f'{run}-group-{i % 10}'
    sent(client.page(anonymous_id=anon, category='Marketing', name='Home', properties={'url': f'https://example.com/?i={i}', 'path': '/'}))
    sent(client.screen(anonymous_id=anon, name='Settings', properties={'from': 'menu'}))
    sent(client.identify(user_id=user, anonymous_id=anon, traits={'plan': 'pro', 'n': i}))
    sent(client.track(user_id=user, anonymous_id=anon, event='signup_completed', properties={'plan': 'pro'}))
    sent(client.group(user_id=user, group_id=group, traits={'name': f'Group {group}'}))
    sent(client.alias(previous_id=old, user_id=user))
    if i == 9:
        client.flush()  # the first people acknowledged: the test kills the ingest now, while the rest is sent
        print('STARTED', flush=True)

client.flush()
client.join()
print(json.dumps({'message_ids': ids, 'errors': errors}), flush=True)
