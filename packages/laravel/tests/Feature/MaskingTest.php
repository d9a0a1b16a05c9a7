<?php

namespace Toolmark\Laravel\Tests\Feature;

use Illuminate\Support\Facades\DB;
use Toolmark\Laravel\Agent\AgentModel;
use Toolmark\Laravel\Models\Conversation;
use Toolmark\Laravel\Testing\ScriptedModel;
use Toolmark\Laravel\Tests\App\User;
use Toolmark\Laravel\Tests\TestCase;

/**
 * Masking before anything is stored, queued or broadcast, with the page's own sensitive paths: a
 * tool declares `sensitivePaths` in its manifest entry (or `writeOnly` in its described schema),
 * and the values there never reach `conversation_messages`, the jobs table or a chat event, even
 * when their keys look harmless to the heuristics and the page echoes them in its result.
 */
final class MaskingTest extends TestCase
{
    private User $ada;

    private Conversation $chat;

    private ScriptedModel $model;

    /** Broadcasts before this index came before the secrets were known (the user's own line, on their own channel). */
    private int $knownFrom = 0;

    private const SECRETS = ['731', '8844', '4242424242424242', '4242 4242 4242 4242'];

    protected function setUp(): void
    {
        parent::setUp();
        $this->ada = $this->user('ada');
        $this->chat = $this->conversation($this->ada, 'page-1', [
            ['name' => 'payment.fill', 'description' => 'Fill the payment form', 'hints' => [], 'sensitivePaths' => ['card.code', 'unlock']],
            ['name' => 'vault.open', 'description' => 'Open the vault', 'hints' => []],
        ]);
    }

    private function say(string $text): void
    {
        $this->actingAs($this->ada)->withSession(['_token' => 't'])
            ->postJson("/toolmark/conversations/{$this->chat->id}/messages", ['text' => $text], ['X-CSRF-TOKEN' => 't'])
            ->assertStatus(202);
        (fn () => $this->terminatingCallbacks = [])->call($this->app);
        // The user's line went out as typed (masked by the heuristics only) before the turn knew the tool's paths.
        $this->knownFrom = 1;
    }

    private function answer(string $id, array $result): void
    {
        $this->bridge($this->ada, $this->chat, ['protocol' => 1, 'type' => 'result', 'clientId' => 'page-1', 'id' => $id, 'result' => $result])->assertNoContent();
    }

    /** Every place a secret must not be: chat lines and history, queued jobs, chat broadcasts, confirmations. */
    private function assertNoSecretStored(): void
    {
        $stored = json_encode([
            DB::table('conversation_messages')->select('text', 'agent')->get(),
            DB::table('jobs')->pluck('payload'),
            DB::table('toolmark_confirmations')->pluck('summary'),
            array_values(array_filter(array_slice($this->broadcasts->sent, $this->knownFrom), fn (array $s): bool => $s['event'] !== 'toolmark.message')),
        ], JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES);
        // Random ids and the jobs' timestamps may hold any digits: they are not what is checked.
        $stored = (string) preg_replace(['/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/', '/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+/'], '', $stored);
        foreach (self::SECRETS as $secret) {
            $this->assertStringNotContainsString($secret, $stored);
        }
    }

    public function test_values_at_declared_sensitive_paths_never_reach_the_database_or_the_queue(): void
    {
        $this->model = new ScriptedModel([
            ScriptedModel::pageCall('payment.fill', ['card' => ['number' => '4242424242424242', 'code' => '731'], 'unlock' => '8844'], 'call_p', 'Filling with code 731.'),
            'Filled. Your code 731 and unlock 8844 are set.',
        ]);
        $this->app->instance(AgentModel::class, $this->model);
        $this->say('Pay with card 4242 4242 4242 4242 code 731, unlock 8844');

        // The page got the real values (it fills the form with them).
        $call = json_decode(json_encode($this->broadcasts->messages()[0]), true);
        $this->assertSame('731', $call['input']['card']['code']);
        $this->assertSame('8844', $call['input']['unlock']);

        // The page echoes them in its result; the queued job that continues the turn holds none.
        $this->answer($call['id'], ['status' => 'needs_confirmation', 'confirmId' => 'c-1', 'summary' => 'Pay with code 731 and unlock 8844', 'changes' => [
            ['path' => 'card.code', 'after' => '731'], ['path' => 'unlock', 'after' => '8844'],
        ]]);
        $this->assertSame(1, DB::table('jobs')->where('payload', 'like', '%ContinueAgentTurn%')->count());
        $this->assertNoSecretStored();

        $this->assertSame(0, $this->artisan('queue:work', ['--stop-when-empty' => true, '--sleep' => 0]));
        $this->assertSame('Filled. Your code [redacted] and unlock [redacted] are set.', $this->chat->messages()->latest('id')->value('text'));
        $this->assertNoSecretStored();
        // The call's values outlive the turn, encrypted, while its card is pending: its outcome is masked with them.
        $this->assertSame(1, DB::table('toolmark_calls')->whereNotNull('secrets')->count(), 'kept for the pending confirmation');
        // The model saw the user's text as typed in that turn (it needs the values), the stored calls masked.
        $this->assertSame('Pay with card 4242 4242 4242 4242 code 731, unlock 8844', $this->model->requests[1]['messages'][0]['text']);
        $this->assertSame(['number' => '**** 4242', 'code' => '[redacted]'], $this->model->requests[1]['messages'][1]['toolCalls'][0]['input']['input']['card']);

        // The user approves; the outcome repeats the values, and none of them is stored. Then they are dropped.
        $this->bridge($this->ada, $this->chat, ['protocol' => 1, 'type' => 'confirmed', 'clientId' => 'page-1', 'confirmId' => 'c-1', 'result' => ['status' => 'ok', 'data' => ['message' => 'Paid with code 731, unlock 8844']]])->assertNoContent();
        $this->assertNoSecretStored();
        $this->assertSame(0, DB::table('toolmark_calls')->whereNotNull('secrets')->count(), 'dropped once the confirmation was answered');
    }

    public function test_a_pin_at_a_path_learned_from_a_describe_is_masked_too(): void
    {
        $this->model = new ScriptedModel([
            ['text' => '', 'tool_calls' => [['id' => 'call_d', 'name' => 'page_describe', 'input' => ['tool' => 'vault.open']]]],
            ScriptedModel::pageCall('vault.open', ['combination' => '8844'], 'call_v'),
            'Opened.',
        ]);
        $this->app->instance(AgentModel::class, $this->model);
        $this->say('Open the vault, the PIN is 8844');
        $describe = $this->broadcasts->messages()[0];
        $this->answer($describe['id'], ['status' => 'ok', 'data' => ['name' => 'vault.open', 'inputSchema' => [
            'type' => 'object', 'properties' => ['combination' => ['type' => 'string', 'writeOnly' => true]],
        ]]]);
        $this->assertSame(0, $this->artisan('queue:work', ['--stop-when-empty' => true, '--sleep' => 0]));
        $call = json_decode(json_encode($this->broadcasts->messages()[1]), true);
        $this->assertSame(['vault.open', '8844'], [$call['tool'], $call['input']['combination']]);
        $this->answer($call['id'], ['status' => 'ok', 'data' => ['opened' => true, 'with' => '8844']]);
        $this->assertSame(0, $this->artisan('queue:work', ['--stop-when-empty' => true, '--sleep' => 0]));
        $this->assertSame('Opened.', $this->chat->messages()->latest('id')->value('text'));
        $this->assertNoSecretStored();
    }
}
