<?php

namespace Toolmark\Laravel\Tests\Feature;

use Illuminate\Support\Facades\DB;
use Toolmark\Laravel\Agent\AgentModel;
use Toolmark\Laravel\Agent\TextStream;
use Toolmark\Laravel\Events\ToolmarkChat;
use Toolmark\Laravel\Models\Conversation;
use Toolmark\Laravel\Testing\ScriptedModel;
use Toolmark\Laravel\Tests\App\User;
use Toolmark\Laravel\Tests\TestCase;

/**
 * The agent's reply as it streams (`.toolmark.delta`, in batches, masked like the stored line) and
 * each page call as the chat shows it (`.toolmark.tool`, and the `part` of its tool lines).
 */
final class StreamingTest extends TestCase
{
    private User $ada;

    private Conversation $chat;

    private const TOOLS = [
        ['name' => 'payment.fill', 'title' => 'Fill the payment form', 'description' => 'Fill the payment form', 'hints' => ['consequential' => true], 'sensitivePaths' => ['card.code', 'unlock']],
        ['name' => 'challenges.list', 'title' => 'List challenges', 'description' => 'List the challenges', 'hints' => ['readOnly' => true]],
    ];

    protected function setUp(): void
    {
        parent::setUp();
        $this->ada = $this->user('ada');
    }

    private function start(array $replies, array $tools = []): ScriptedModel
    {
        $this->chat = $this->conversation($this->ada, 'page-1', $tools);
        $model = new ScriptedModel($replies);
        $this->app->instance(AgentModel::class, $model);

        return $model;
    }

    private function say(string $text): void
    {
        $this->actingAs($this->ada)->withSession(['_token' => 't'])
            ->postJson("/toolmark/conversations/{$this->chat->id}/messages", ['text' => $text], ['X-CSRF-TOKEN' => 't'])
            ->assertStatus(202);
        (fn () => $this->terminatingCallbacks = [])->call($this->app);
    }

    private function answer(string $id, array $result): void
    {
        $this->bridge($this->ada, $this->chat, ['protocol' => 1, 'type' => 'result', 'clientId' => 'page-1', 'id' => $id, 'result' => $result])->assertNoContent();
    }

    private function runQueue(): void
    {
        $this->assertSame(0, $this->artisan('queue:work', ['--stop-when-empty' => true, '--sleep' => 0]));
    }

    /** @return list<array<string, mixed>> the payloads broadcast as this event, in order */
    private function sent(string $event): array
    {
        return array_values(array_map(fn (array $s): array => $s['payload'], array_filter($this->broadcasts->sent, fn (array $s): bool => $s['event'] === $event)));
    }

    /**
     * Every payload the chat got (JSON), random ids aside (they may hold any digits): not the calls
     * to the page (it fills the form with the values) nor the user's own line, sent before the turn
     * knew the tool's paths (masked by the heuristics only).
     */
    private function everything(): string
    {
        $chat = array_filter($this->broadcasts->sent, fn (array $s): bool => $s['event'] !== 'toolmark.message' && ($s['payload']['message']['role'] ?? null) !== 'user');
        $json = (string) json_encode(array_values(array_map(fn (array $s): array => $s['payload'], $chat)), JSON_UNESCAPED_UNICODE);

        return (string) preg_replace('/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/', '', $json);
    }

    public function test_the_reply_streams_in_batches_in_order_and_adds_up_to_the_stored_line(): void
    {
        config(['toolmark.stream.interval_ms' => 60000, 'toolmark.stream.max_bytes' => 256]);
        $words = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta'];
        $tokens = [];
        for ($i = 0; $i < 400; $i++) {
            $tokens[] = $words[$i % count($words)].($i % 17 === 16 ? '. ' : ' ');
        }
        $this->start([ScriptedModel::streamed($tokens)]);
        $this->say('Tell me a long story');

        $deltas = $this->sent('toolmark.delta');
        $stored = $this->chat->messages()->where('role', 'assistant')->sole();
        // 400 model tokens (2.4 KB of text): a batch per 256 bytes, not an event per token.
        $this->assertGreaterThanOrEqual(9, count($deltas));
        $this->assertLessThanOrEqual(16, count($deltas), count($deltas).' events');
        $this->assertSame($stored->text, implode('', array_column($deltas, 'delta')), 'in order, adding up to the stored text');
        $this->assertSame(rtrim(implode('', $tokens)), rtrim($stored->text));
        $this->assertSame([$stored->stream_id], array_values(array_unique(array_column($deltas, 'messageId'))));
        foreach ($deltas as $payload) {
            $this->assertSame(['messageId', 'delta'], array_keys(array_diff_key($payload, ['socket' => 0])));
            $this->assertLessThanOrEqual(256, strlen((string) json_encode($payload['delta'])));
        }
        // The stored line ends the stream: its chat event carries the same messageId, after the last delta.
        $line = $this->sent('toolmark.chat');
        $this->assertSame(['id' => $stored->id, 'role' => 'assistant', 'text' => $stored->text, 'messageId' => $stored->stream_id], end($line)['message']);
        $events = array_column($this->broadcasts->sent, 'event');
        $this->assertSame('toolmark.chat', end($events));
        $this->assertSame("private-toolmark.{$this->ada->id}.{$this->chat->id}", $this->broadcasts->sent[count($events) - 2]['channels'][0]);
    }

    public function test_a_batch_goes_out_at_most_every_interval(): void
    {
        $now = 0.0;
        $out = [];
        $stream = new TextStream(function (string $d) use (&$out): void {
            $out[] = $d;
        }, [], [], 100, 2048, function () use (&$now): float {
            return $now;
        });
        // 200 tokens, one every 10 ms: two seconds of text.
        for ($i = 0; $i < 200; $i++) {
            $stream->push("word{$i} ");
            $now += 10;
        }
        $stream->finish(implode('', array_map(fn (int $i): string => "word{$i} ", range(0, 199))));
        $this->assertGreaterThanOrEqual(19, count($out));
        $this->assertLessThanOrEqual(22, count($out), count($out).' events');
        $this->assertSame($stream->sent(), implode('', $out));
        $this->assertSame(count($out), $stream->events());
    }

    public function test_a_card_number_and_a_cvc_split_across_deltas_never_go_out(): void
    {
        // Every delta is a chance to leak: a batch is tried at each one.
        config(['toolmark.stream.interval_ms' => 0]);
        $this->start([ScriptedModel::streamed([
            'Noted. ', 'Your card ', 'is 4242 42', '42 4242', ' 4242', ' and the ', 'CVC', ' is 1', '2', '3', ', the ', 'password: hun', 'ter2 ', 'and ', 'the PIN ', '98', '76. ', 'All ', 'set ', 'now.',
        ])]);
        $this->say('Remember my card');

        $stored = $this->chat->messages()->where('role', 'assistant')->sole()->text;
        $this->assertSame('Noted. Your card is **** 4242 and the CVC is ***, the password: *** and the PIN ***. All set now.', $stored);
        $deltas = array_column($this->sent('toolmark.delta'), 'delta');
        $this->assertGreaterThan(3, count($deltas), 'it streamed');
        $this->assertSame($stored, implode('', $deltas));
        $everything = $this->everything();
        foreach (['4242 4', '42 42', '123', '"1"', '"12"', 'hun', 'ter2', '9876', '98', '76'] as $secret) {
            $this->assertStringNotContainsString($secret, $everything);
        }
        foreach ($deltas as $delta) {
            // No digit goes out but the last four of the card, masked whole.
            $this->assertDoesNotMatchRegularExpression('/\d/', str_replace('**** 4242', '', $delta), $delta);
        }
    }

    public function test_a_value_for_a_sensitive_path_is_held_back_until_the_call_names_it(): void
    {
        // The heuristics do not know `zebra-88`: only the call, after the text, makes it a secret.
        config(['toolmark.stream.interval_ms' => 0]);
        $this->start([
            ScriptedModel::streamed(['Opening ', 'it with ', 'zebra', '-88 now, ', 'one moment.'], [
                ['id' => 'call_p', 'name' => 'page_call', 'input' => ['tool' => 'payment.fill', 'input' => ['unlock' => 'zebra-88']]],
            ]),
        ], self::TOOLS);
        $this->say('My unlock word is zebra-88, fill it in');

        $this->assertSame('Opening it with [redacted] now, one moment.', $this->chat->messages()->where('role', 'assistant')->sole()->text);
        $deltas = array_column($this->sent('toolmark.delta'), 'delta');
        $this->assertSame('Opening it with ', implode('', array_slice($deltas, 0, -1)), 'it stopped before the word from the user\'s message');
        $this->assertSame('[redacted] now, one moment.', end($deltas), 'the rest, from the stored text');
        $this->assertSame('Opening it with [redacted] now, one moment.', implode('', $deltas), 'the stored line ended it');
        $this->assertStringNotContainsString('zebra', $this->everything());
        $this->assertStringNotContainsString('-88', $this->everything());
    }

    public function test_without_chat_events_nothing_streams(): void
    {
        config(['toolmark.chat_events' => false]);
        $this->start(['Just the line.', ScriptedModel::pageCall('challenges.list')], self::TOOLS);
        $this->say('hi');
        $this->assertSame([], $this->sent('toolmark.delta'));
        $this->assertNull($this->chat->messages()->where('role', 'assistant')->sole()->stream_id);
    }

    public function test_each_page_call_goes_running_waiting_done_with_masked_input_and_the_lines_keep_their_parts(): void
    {
        $this->start([
            ScriptedModel::pageCall('payment.fill', ['card' => ['number' => '4242424242424242', 'code' => '731'], 'unlock' => '8844', 'note' => 'ok'], 'call_pay', 'Filling.'),
            'A confirmation is waiting in the page.',
            'Paid.',
        ], self::TOOLS);
        $this->say('Pay with 4242 4242 4242 4242 code 731 unlock 8844');

        $running = [
            'callId' => 'call_pay',
            'tool' => 'payment.fill',
            'title' => 'Fill the payment form',
            'input' => '{"card":{"number":"**** 4242","code":"[redacted]"},"unlock":"[redacted]","note":"ok"}',
            'state' => 'running',
        ];
        $this->assertSame([$running], array_column($this->sent('toolmark.tool'), 'part'));
        $call = json_decode(json_encode($this->broadcasts->messages()[0]), true);
        $this->answer($call['id'], ['status' => 'needs_confirmation', 'confirmId' => 'c-1', 'summary' => 'Pay 20 € with code 731', 'changes' => []]);
        $waiting = ['callId' => 'call_pay', 'tool' => 'payment.fill', 'title' => 'Fill the payment form', 'input' => $running['input'], 'state' => 'waiting', 'summary' => 'Pay 20 € with code [redacted]', 'confirmId' => 'c-1'];
        $this->assertSame($waiting, $this->sent('toolmark.tool')[1]['part'], 'at once, before the queue runs');
        $this->runQueue();

        $this->bridge($this->ada, $this->chat, ['protocol' => 1, 'type' => 'confirmed', 'clientId' => 'page-1', 'confirmId' => 'c-1', 'result' => ['status' => 'ok', 'data' => ['paid' => true]]])->assertNoContent();
        $this->runQueue();
        $done = ['callId' => 'call_pay', 'tool' => 'payment.fill', 'title' => 'Fill the payment form', 'input' => $running['input'], 'state' => 'done', 'summary' => 'ok'];
        $this->assertSame(['running', 'waiting', 'done'], array_map(fn (array $p): string => $p['part']['state'], $this->sent('toolmark.tool')));
        $this->assertSame($done, $this->sent('toolmark.tool')[2]['part']);

        // History: the tool lines keep their parts (the chat replays the last one of each callId).
        $lines = $this->chat->refresh()->chatLines();
        $tools = array_values(array_filter($lines, fn (array $l): bool => $l['role'] === 'tool'));
        $this->assertSame([$waiting, $done], array_column($tools, 'part'));
        $this->assertSame(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant'], array_column($lines, 'role'));
        // The tool lines' chat events carry the same parts.
        $chatParts = array_values(array_filter(array_map(fn (array $p): ?array => $p['message']['part'] ?? null, $this->sent('toolmark.chat'))));
        $this->assertSame([$waiting, $done], $chatParts);
        $everything = $this->everything();
        foreach (['731', '8844', '4242424242424242', '4242 4242'] as $secret) {
            $this->assertStringNotContainsString($secret, $everything);
        }
        $this->assertStringNotContainsString('8844', (string) DB::table('jobs')->pluck('payload')->join(''));
    }

    public function test_a_call_answered_ok_a_refused_one_and_one_that_times_out(): void
    {
        config(['toolmark.deadline_ms' => 1000]);
        $this->start([
            ['text' => '', 'tool_calls' => [
                ['id' => 'call_a', 'name' => 'page_call', 'input' => ['tool' => 'challenges.list', 'input' => []]],
                ['id' => 'call_b', 'name' => 'page_call', 'input' => ['tool' => 'challenges.list', 'input' => ['q' => 'x']]],
            ]],
            'Two lists.',
        ], self::TOOLS);
        $this->say('List them');
        [$a, $b] = $this->broadcasts->messages();
        $this->answer($a['id'], ['status' => 'ok', 'data' => ['items' => [['t' => 1], ['t' => 2]]]]);
        $this->runQueue();
        $this->travel(2)->seconds();
        $this->answer($b['id'], ['status' => 'ok', 'data' => []]); // late: settled as timed out
        $this->runQueue();
        $parts = array_column($this->sent('toolmark.tool'), 'part');
        $this->assertSame(
            [['call_a', 'running', null], ['call_b', 'running', null], ['call_a', 'done', 'ok (2 results)'], ['call_b', 'failed', 'timeout']],
            array_map(fn (array $p): array => [$p['callId'], $p['state'], $p['summary'] ?? null], $parts),
        );
        $this->assertSame('{}', $parts[0]['input']);
        $this->assertSame('List challenges', $parts[0]['title']);
        $tools = array_values(array_filter($this->chat->refresh()->chatLines(), fn (array $l): bool => $l['role'] === 'tool'));
        $this->assertSame([['done', 'ok (2 results)'], ['failed', 'timeout']], array_map(fn (array $l): array => [$l['part']['state'], $l['part']['summary']], $tools));
    }

    public function test_a_refused_call_shows_failed_at_once(): void
    {
        \Illuminate\Support\Facades\Gate::define('toolmark.call', fn ($user, string $tool): bool => $tool !== 'payment.fill');
        $this->start([ScriptedModel::pageCall('payment.fill', ['unlock' => 'x'], 'call_r'), 'Not allowed.'], self::TOOLS);
        $this->say('Pay');
        $this->assertSame(
            [['callId' => 'call_r', 'tool' => 'payment.fill', 'title' => 'Fill the payment form', 'input' => '{"unlock":"[redacted]"}', 'state' => 'failed', 'summary' => 'refused not_allowed']],
            array_column($this->sent('toolmark.tool'), 'part'),
        );
        $this->assertSame('failed', $this->chat->messages()->where('role', 'tool')->sole()->part['state']);
    }

    public function test_a_tool_line_with_a_long_text_keeps_its_part_and_stays_under_the_limit(): void
    {
        $this->start([]);
        $line = $this->chat->messages()->create(['role' => 'tool', 'text' => str_repeat('é', 1300), 'part' => ['callId' => 'c', 'tool' => 't', 'input' => str_repeat('"', 160), 'state' => 'done']]);
        $message = end($this->broadcasts->sent)['payload']['message'];
        $this->assertSame(['id' => $line->id, 'role' => 'tool', 'part' => $line->part], $message, 'without its text: the page reloads the chat');
        $this->assertLessThanOrEqual(ToolmarkChat::MAX_TEXT_BYTES, strlen((string) json_encode($message)));
    }
}
