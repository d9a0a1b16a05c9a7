<?php

namespace Toolmark\Laravel\Tests\Feature;

use Toolmark\Laravel\Agent\AgentModel;
use Toolmark\Laravel\Bridge;
use Toolmark\Laravel\Models\Conversation;
use Toolmark\Laravel\PageWait;
use Toolmark\Laravel\Testing\ScriptedModel;
use Toolmark\Laravel\Tests\App\User;
use Toolmark\Laravel\Tests\TestCase;

/**
 * A message sent while the conversation's page is loading (its private channel authorized, its
 * first manifest not stored yet) waits for that manifest, up to `toolmark.page_wait_ms`, so the
 * model sees the page's tools. With no page loading nothing waits.
 */
final class PageWaitTest extends TestCase
{
    private ScriptedModel $model;

    private User $ada;

    /** @var list<int> every pause of the wait, in ms */
    private array $pauses = [];

    /** @var (callable(int): void)|null what happens during the wait's first pause (the page's manifest POST landing) */
    private $duringWait = null;

    protected function setUp(): void
    {
        parent::setUp();
        $this->model = new ScriptedModel(['Hello.']);
        $this->app->instance(AgentModel::class, $this->model);
        $this->ada = $this->user('ada');
        $test = $this;
        $this->app->instance(PageWait::class, new class($test) extends PageWait {
            public function __construct(private readonly PageWaitTest $test) {}

            protected function pause(int $ms): void
            {
                $this->test->paused($ms);
                usleep($ms * 1000);
            }
        });
    }

    /** Called by the wait's pause. */
    public function paused(int $ms): void
    {
        $this->pauses[] = $ms;
        if ($this->duringWait !== null && count($this->pauses) === 1) {
            ($this->duringWait)($ms);
        }
    }

    /** The page's Echo client authorizing the conversation's private channel. */
    private function authorize(Conversation $chat): void
    {
        $this->actingAs($this->ada)->withSession(['_token' => 't'])
            ->post('/broadcasting/auth', ['channel_name' => "private-toolmark.{$this->ada->id}.{$chat->id}", 'socket_id' => '1.1', '_token' => 't'])
            ->assertOk();
    }

    /** The page load's manifest, as the bridge route stores it. */
    private function manifest(Conversation $chat, string $clientId, string $tool): void
    {
        $reason = $this->app->make(Bridge::class)->handle($chat, (int) $this->ada->id, (string) json_encode([
            'protocol' => 1, 'type' => 'manifest', 'clientId' => $clientId, 'rev' => 1,
            'tools' => [['name' => $tool, 'llmName' => str_replace('.', '__', $tool), 'description' => 'A tool', 'hints' => (object) []]],
        ]));
        $this->assertNull($reason);
    }

    private function say(Conversation $chat, string $text): void
    {
        $this->actingAs($this->ada)->withSession(['_token' => 't'])
            ->postJson("/toolmark/conversations/{$chat->id}/messages", ['text' => $text], ['X-CSRF-TOKEN' => 't'])
            ->assertStatus(202);
        // The turn ran after that response; this test app lives on, so it must not run again after the next request.
        (fn () => $this->terminatingCallbacks = [])->call($this->app);
    }

    /** The page_call tool description of the model's first request (it lists the manifest's tools). */
    private function offered(): string
    {
        $this->assertCount(1, $this->model->requests);

        return (string) $this->model->requests[0]['tools'][0]['description'];
    }

    public function test_a_message_sent_while_the_page_loads_waits_for_its_manifest(): void
    {
        $chat = $this->conversation($this->ada, null);
        $this->authorize($chat);
        $this->duringWait = fn () => $this->manifest($chat, 'page-1', 'notes.search');

        $this->say($chat, 'find chess');

        $this->assertNotEmpty($this->pauses, 'the turn waited');
        $this->assertStringContainsString('notes.search', $this->offered(), "the model saw the page's tools");
        $this->assertSame('page-1', $chat->refresh()->active_client_id);
    }

    public function test_after_a_reload_the_model_sees_the_new_page_loads_tools_not_the_old_ones(): void
    {
        $chat = $this->conversation($this->ada, null);
        $this->manifest($chat, 'page-1', 'notes.search');
        $this->authorize($chat); // the reload
        $this->duringWait = fn () => $this->manifest($chat, 'page-2', 'notes.archive');

        $this->say($chat, 'archive chess');

        $this->assertStringContainsString('notes.archive', $this->offered());
        $this->assertStringNotContainsString('notes.search', $this->offered());
    }

    public function test_nothing_waits_when_no_page_is_loading(): void
    {
        $chat = $this->conversation($this->ada, 'page-1');
        $this->say($chat, 'hello');
        $this->assertSame([], $this->pauses);
        $this->assertCount(1, $this->model->requests);

        // A page that sent its manifest after authorizing is no longer loading.
        $this->authorize($chat);
        $this->manifest($chat, 'page-2', 'notes.search');
        $this->model = new ScriptedModel(['Hi again.']);
        $this->app->instance(AgentModel::class, $this->model);
        $this->say($chat, 'hello again');
        $this->assertSame([], $this->pauses);
        $this->assertStringContainsString('notes.search', $this->offered());
    }

    public function test_a_page_that_never_sends_its_manifest_holds_the_message_no_longer_than_page_wait_ms(): void
    {
        config(['toolmark.page_wait_ms' => 300]);
        $chat = $this->conversation($this->ada, null);
        $this->authorize($chat);
        $began = hrtime(true);

        $this->say($chat, 'hello');

        $waitedMs = (hrtime(true) - $began) / 1e6;
        $this->assertGreaterThanOrEqual(300, $waitedMs);
        $this->assertLessThanOrEqual(intdiv(300, PageWait::POLL_MS) + 1, count($this->pauses), 'bounded: one look per poll interval');
        $this->assertCount(1, $this->model->requests, 'the turn went on without the page');
    }

    public function test_page_wait_ms_0_never_waits_and_the_mark_expires(): void
    {
        $chat = $this->conversation($this->ada, null);
        $this->authorize($chat);
        $this->assertTrue(PageWait::isConnecting($this->ada->id, $chat->id));
        $this->travel(PageWait::CONNECTING_TTL_SECONDS + 1)->seconds();
        $this->assertFalse(PageWait::isConnecting($this->ada->id, $chat->id), 'an authorization counts for a short time only');

        $this->authorize($chat);
        config(['toolmark.page_wait_ms' => 0]);
        $this->say($chat, 'hello');
        $this->assertSame([], $this->pauses);
        $this->assertCount(1, $this->model->requests);
    }

    public function test_a_refused_authorization_marks_nothing(): void
    {
        $bob = $this->user('bob');
        $chat = $this->conversation($this->ada, null);
        $this->actingAs($bob)->withSession(['_token' => 't'])
            ->post('/broadcasting/auth', ['channel_name' => "private-toolmark.{$bob->id}.{$chat->id}", 'socket_id' => '1.1', '_token' => 't'])
            ->assertForbidden();
        $this->assertFalse(PageWait::isConnecting($bob->id, $chat->id));
        $this->assertFalse(PageWait::isConnecting($this->ada->id, $chat->id));
    }
}
