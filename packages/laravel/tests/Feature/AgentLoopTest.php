<?php

namespace Toolmark\Laravel\Tests\Feature;

use Illuminate\Support\Facades\DB;
use Toolmark\Laravel\Agent\AgentLoop;
use Toolmark\Laravel\Llm;
use Toolmark\Laravel\Models\Conversation;
use Toolmark\Laravel\Tests\App\User;
use Toolmark\Laravel\Tests\TestCase;

/**
 * The agent loop against an OpenAI-compatible endpoint that replays recorded streaming responses
 * (tests/fixtures/chat-completions): a turn that calls a consequential tool, the step after its
 * needs_confirmation, and the follow-up turn after `confirmed`, which gets no page tools.
 */
final class AgentLoopTest extends TestCase
{
    /** @var resource|null */
    private $server = null;

    private string $records;

    private User $ada;

    private Conversation $chat;

    private const TOOLS = [
        ['name' => 'challenges.create', 'description' => 'Create a challenge', 'hints' => ['consequential' => true]],
        ['name' => 'challenges.list', 'description' => 'List the challenges', 'hints' => ['readOnly' => true]],
    ];

    /** Tests that replay another recording than tests/fixtures/chat-completions/*.sse. */
    private const REPLAYS = ['test_a_call_without_input_is_sent_back_to_the_model_with_an_empty_input_object' => 'empty-input'];

    protected function setUp(): void
    {
        parent::setUp();
        $this->records = sys_get_temp_dir().'/toolmark-llm-'.bin2hex(random_bytes(4));
        mkdir($this->records);
        $socket = stream_socket_server('tcp://127.0.0.1:0');
        $port = (int) substr((string) strrchr((string) stream_socket_get_name($socket, false), ':'), 1);
        fclose($socket);
        $router = __DIR__.'/../fixtures/chat-completions/router.php';
        $this->server = proc_open(
            ['php', '-S', "127.0.0.1:{$port}", $router],
            [['pipe', 'r'], ['file', '/dev/null', 'w'], ['file', '/dev/null', 'w']],
            $pipes,
            null,
            [
                'TOOLMARK_RECORD_DIR' => $this->records,
                'TOOLMARK_REPLAY_DIR' => __DIR__.'/../fixtures/chat-completions/'.(self::REPLAYS[$this->getName(false)] ?? ''),
                'PATH' => (string) getenv('PATH'),
            ],
        );
        for ($i = 0; $i < 200 && @fsockopen('127.0.0.1', $port) === false; $i++) {
            usleep(10000);
        }
        config(['toolmark.llm.base_url' => "http://127.0.0.1:{$port}/v1", 'toolmark.llm.api_key' => 'sk-test', 'toolmark.llm.model' => 'gpt-4o-mini']);
        $this->ada = $this->user('ada');
        $this->chat = $this->conversation($this->ada, 'page-1', self::TOOLS);
    }

    protected function tearDown(): void
    {
        if (is_resource($this->server)) {
            proc_terminate($this->server);
            proc_close($this->server);
        }
        array_map('unlink', glob("{$this->records}/*") ?: []);
        @rmdir($this->records);
        parent::tearDown();
    }

    /** @return array{authorization: string|null, body: array<string, mixed>} the nth request the model endpoint got */
    private function request(int $n): array
    {
        return json_decode((string) file_get_contents("{$this->records}/request-{$n}.json"), true);
    }

    private function say(string $text): void
    {
        $this->actingAs($this->ada)->withSession(['_token' => 't'])
            ->postJson("/toolmark/conversations/{$this->chat->id}/messages", ['text' => $text], ['X-CSRF-TOKEN' => 't'])
            ->assertStatus(202);
        // The turn ran after that response. A real request ends there; this test app lives on,
        // so its terminating callbacks (the turn) must not run again after the next request.
        (fn () => $this->terminatingCallbacks = [])->call($this->app);
    }

    private function runQueue(): void
    {
        $this->assertSame(0, $this->artisan('queue:work', ['--stop-when-empty' => true, '--sleep' => 0]));
    }

    public function test_a_turn_its_step_after_needs_confirmation_and_the_follow_up_after_confirmed(): void
    {
        $this->say('Create a challenge titled Chess, card 4242 4242 4242 4242');

        // Step 1: the system prompt, the user's text as typed, and exactly the two page tools.
        $first = $this->request(1);
        $this->assertSame('Bearer sk-test', $first['authorization']);
        $this->assertTrue($first['body']['stream']);
        $this->assertSame(
            [['role' => 'system', 'content' => AgentLoop::SYSTEM_PROMPT], ['role' => 'user', 'content' => 'Create a challenge titled Chess, card 4242 4242 4242 4242']],
            $first['body']['messages'],
        );
        $this->assertSame(['page_call', 'page_describe'], array_column(array_column($first['body']['tools'], 'function'), 'name'));
        $this->assertSame(Llm::pageCallTool(self::TOOLS)['description'], $first['body']['tools'][0]['function']['description']);

        // The model's call, assembled from its fragments, went to the page with the manifest's rev.
        $call = $this->broadcasts->messages()[0];
        $this->assertSame(['challenges.create', ['title' => 'Chess'], 1], [$call['tool'], (array) $call['input'], $call['rev']]);

        // Stored masked; the text as typed only encrypted, for the turn.
        $user = DB::table('conversation_messages')->where('role', 'user')->first();
        $this->assertSame('Create a challenge titled Chess, card **** 4242', $user->text);
        $this->assertStringNotContainsString('4242 4242', (string) $user->secret_text);
        $this->assertStringNotContainsString('4242 4242', (string) $user->agent);

        // Step 2, after the page's needs_confirmation.
        $this->bridge($this->ada, $this->chat, ['protocol' => 1, 'type' => 'result', 'clientId' => 'page-1', 'id' => $call['id'], 'result' => [
            'status' => 'needs_confirmation', 'confirmId' => 'confirm-1', 'summary' => 'Create Chess',
        ]])->assertNoContent();
        $this->runQueue();
        $second = $this->request(2)['body'];
        $this->assertSame('call_Xq1', $second['messages'][2]['tool_calls'][0]['id']);
        $this->assertSame('{"tool":"challenges.create","input":{"title":"Chess"}}', $second['messages'][2]['tool_calls'][0]['function']['arguments']);
        $this->assertSame(
            ['role' => 'tool', 'tool_call_id' => 'call_Xq1', 'content' => '{"status":"needs_confirmation","confirmId":"confirm-1","summary":"Create Chess","changes":[]}'],
            $second['messages'][3],
        );
        $this->assertSame('Create a challenge titled Chess, card 4242 4242 4242 4242', $second['messages'][1]['content'], 'the same turn: the text as typed');
        // That step answered in text: the turn is over, the text as typed is gone.
        $this->assertSame(0, DB::table('conversation_messages')->whereNotNull('secret_text')->count());

        // The follow-up after confirmed: no page tools, the outcome wrapped as page data.
        $this->bridge($this->ada, $this->chat, ['protocol' => 1, 'type' => 'confirmed', 'clientId' => 'page-1', 'confirmId' => 'confirm-1', 'result' => ['status' => 'ok', 'data' => ['id' => 3]]])->assertNoContent();
        $this->runQueue();
        $third = $this->request(3)['body'];
        $this->assertArrayNotHasKey('tools', $third);
        $this->assertSame(['role' => 'system', 'content' => AgentLoop::FOLLOW_UP_PROMPT], $third['messages'][0]);
        $this->assertSame('Create a challenge titled Chess, card **** 4242', $third['messages'][1]['content']);
        // The outcome is a tool result right after a repeat of its call, as the API requires (the endpoint checks it).
        $this->assertSame(
            [
                ['role' => 'assistant', 'content' => null, 'tool_calls' => [$second['messages'][2]['tool_calls'][0]]],
                ['role' => 'tool', 'tool_call_id' => 'call_Xq1', 'content' => Llm::json(Llm::wrapUntrusted(['status' => 'ok', 'data' => ['id' => 3]]))],
            ],
            array_slice($third['messages'], -2),
        );
        // Its tool call (the recording has one) is dropped: nothing more goes to the page.
        $this->assertCount(1, $this->broadcasts->messages());
        $this->assertSame(
            ['A confirmation is waiting in the page.', 'Done: Chess is created.'],
            DB::table('conversation_messages')->where('role', 'assistant')->where('text', '!=', '')->orderBy('id')->pluck('text')->all(),
        );
        $this->assertSame([], $this->rejections());

        // The model's content deltas streamed as they arrived (`.toolmark.delta`): for each stored
        // reply, they add up to its text and carry its messageId.
        $deltas = array_values(array_filter($this->broadcasts->sent, fn (array $s): bool => $s['event'] === 'toolmark.delta'));
        $this->assertNotEmpty($deltas);
        foreach (DB::table('conversation_messages')->where('role', 'assistant')->where('text', '!=', '')->get() as $line) {
            $own = array_filter($deltas, fn (array $s): bool => $s['payload']['messageId'] === $line->stream_id);
            $this->assertSame($line->text, implode('', array_map(fn (array $s): string => $s['payload']['delta'], $own)));
        }
    }

    public function test_a_model_that_cannot_be_reached_ends_the_turn_with_a_chat_line(): void
    {
        config(['toolmark.llm.base_url' => 'http://127.0.0.1:1/v1']);
        $this->say('Pay with 4242 4242 4242 4242');
        $line = $this->chat->messages()->latest('id')->first();
        $this->assertSame(['assistant', AgentLoop::MODEL_FAILED, null], [$line->role, $line->text, $line->agent]);
        $this->assertSame(0, DB::table('conversation_messages')->whereNotNull('secret_text')->count(), 'the turn is over');
        $this->assertStringContainsString('toolmark: the model request failed', (string) file_get_contents(storage_path('logs/laravel.log')));
    }

    public function test_the_toolmark_call_gate_refuses_a_tool_and_the_model_is_told_not_allowed(): void
    {
        \Illuminate\Support\Facades\Gate::define('toolmark.call', fn ($user, string $tool): bool => $tool !== 'challenges.create');
        $this->say('Create a challenge titled Chess');
        $this->assertSame([], $this->broadcasts->messages(), 'the refused call never reaches the page');
        $this->assertSame(
            ['role' => 'tool', 'tool_call_id' => 'call_Xq1', 'content' => '{"status":"refused","code":"not_allowed","message":"The app does not allow this tool for this user"}'],
            $this->request(2)['body']['messages'][3],
        );
    }

    public function test_a_call_without_input_is_sent_back_to_the_model_with_an_empty_input_object(): void
    {
        $this->say('Which challenges do I have?');
        $call = $this->broadcasts->messages()[0];
        $this->assertSame(['challenges.list', '{}'], [$call['tool'], json_encode($call['input'])]);
        $this->bridge($this->ada, $this->chat, ['protocol' => 1, 'type' => 'result', 'clientId' => 'page-1', 'id' => $call['id'], 'result' => ['status' => 'ok', 'data' => []]])->assertNoContent();
        $this->runQueue();

        // The endpoint checked the order and the arguments (it answers 400 otherwise): the step went through.
        $second = $this->request(2)['body']['messages'];
        $this->assertSame('{"tool":"challenges.list","input":{}}', $second[2]['tool_calls'][0]['function']['arguments']);
        $this->assertSame(['tool', 'call_L1'], [$second[3]['role'], $second[3]['tool_call_id']]);
        $this->assertSame('You have no challenges yet.', $this->chat->messages()->latest('id')->value('text'));
    }

    public function test_a_result_stored_after_a_later_user_message_still_follows_its_call(): void
    {
        $this->say('Create a challenge titled Chess');
        $call = $this->broadcasts->messages()[0];
        // The page answers; meanwhile the user wrote again, so the history holds user, assistant, tool
        // in another order than the API needs once the next line joins.
        $this->chat->messages()->create(['role' => 'user', 'text' => 'hurry', 'agent' => ['role' => 'user', 'text' => 'hurry']]);
        $this->bridge($this->ada, $this->chat, ['protocol' => 1, 'type' => 'result', 'clientId' => 'page-1', 'id' => $call['id'], 'result' => [
            'status' => 'needs_confirmation', 'confirmId' => 'confirm-1', 'summary' => 'Create Chess',
        ]])->assertNoContent();
        $this->runQueue();
        $roles = array_map(fn (array $m): string => $m['role'].(isset($m['tool_call_id']) ? ':'.$m['tool_call_id'] : ''), $this->request(2)['body']['messages']);
        $this->assertSame(['system', 'user', 'assistant', 'tool:call_Xq1', 'user'], $roles);
    }
}
