<?php

namespace Toolmark\Laravel\Tests\Feature;

use Illuminate\Support\Carbon;
use Illuminate\Support\Facades\Bus;
use Illuminate\Support\Facades\DB;
use Toolmark\Laravel\Agent\AgentLoop;
use Toolmark\Laravel\Agent\AgentModel;
use Toolmark\Laravel\Decisions;
use Toolmark\Laravel\Generated\Wire;
use Toolmark\Laravel\Jobs\ContinueAgentTurn;
use Toolmark\Laravel\Jobs\ExpireCall;
use Toolmark\Laravel\Jobs\RunFollowUpTurn;
use Toolmark\Laravel\Llm;
use Toolmark\Laravel\Models\Conversation;
use Toolmark\Laravel\Testing\ScriptedModel;
use Toolmark\Laravel\Tests\App\User;
use Toolmark\Laravel\Tests\TestCase;
use Toolmark\Laravel\Toolmark;

/**
 * Pending decisions across reloads (docs/protocol/v1.md, as @toolmark/server's reask.test.ts): a card
 * pending when its page reloads is asked again on the new page load with a new confirmId; the first
 * answer of any of its cards counts, once, and the others are withdrawn.
 */
final class ReaskTest extends TestCase
{
    private const SAVE = ['name' => 'notes.save', 'description' => 'Save a note', 'hints' => ['consequential' => true]];

    private User $ada;

    private Conversation $chat;

    protected function setUp(): void
    {
        parent::setUp();
        Bus::fake([ContinueAgentTurn::class, RunFollowUpTurn::class, ExpireCall::class]);
        $this->ada = $this->user('ada');
        $this->chat = $this->conversation($this->ada, 'page-A', [self::SAVE]);
    }

    protected function tearDown(): void
    {
        Carbon::setTestNow();
        parent::tearDown();
    }

    /** The agent's call of notes.save (tool-call id tc1), answered needs_confirmation `k1` on page-A. */
    private function cardPending(array $input = ['name' => 'Groceries']): string
    {
        $id = (string) app(Toolmark::class)->send($this->chat, 'tc1', 'call', 'notes.save', $input, 1);
        $this->bridge($this->ada, $this->chat, $this->needsConfirmation($id, 'k1', 'page-A'))->assertNoContent();

        return $id;
    }

    private function needsConfirmation(string $callId, string $confirmId, string $clientId): array
    {
        return ['protocol' => 1, 'type' => 'result', 'clientId' => $clientId, 'id' => $callId, 'result' => [
            'status' => 'needs_confirmation', 'confirmId' => $confirmId, 'summary' => 'Save Groceries', 'changes' => [],
        ]];
    }

    private function confirmed(string $confirmId, string $clientId): array
    {
        return ['protocol' => 1, 'type' => 'confirmed', 'clientId' => $clientId, 'confirmId' => $confirmId, 'result' => ['status' => 'ok', 'data' => 'saved']];
    }

    private function gone(string $clientId): void
    {
        $this->actingAs($this->ada)->withSession(['_token' => 't'])
            ->post("/toolmark/gone/{$this->chat->id}", ['clientId' => $clientId, '_token' => 't'])->assertNoContent();
    }

    /** A new page load's manifest (a reload); returns the calls it was sent. */
    private function reload(string $clientId, array $tool = self::SAVE, int $rev = 1): array
    {
        $before = count($this->broadcasts->messages());
        $this->page($this->ada, $this->chat, $clientId, $rev, [$tool])->assertNoContent();

        return array_values(array_filter(
            array_slice($this->broadcasts->messages(), $before),
            fn (array $m): bool => $m['type'] === 'call' && $m['clientId'] === $clientId,
        ));
    }

    /** @return list<object> the conversation's tool lines, oldest first */
    private function toolLines(): array
    {
        return DB::table('conversation_messages')->where('conversation_id', $this->chat->id)->where('role', 'tool')->orderBy('id')->get()->all();
    }

    /** @return list<object> the tool lines that record a confirmed outcome */
    private function outcomes(): array
    {
        return array_values(array_filter($this->toolLines(), fn (object $m): bool => str_contains((string) $m->agent, '"confirmId"')));
    }

    public function test_a_reloaded_page_is_asked_again_with_a_new_confirm_id_approving_runs_once_and_the_old_confirm_id_is_expired(): void
    {
        $this->cardPending();
        $this->gone('page-A');
        $this->assertSame('expired', DB::table('toolmark_confirmations')->where('confirm_id', 'k1')->value('state'));
        // The agent is not told the card expired: it is back.
        $this->assertSame([], $this->toolLines());

        $calls = $this->reload('page-B');
        $this->assertCount(1, $calls);
        $this->assertSame(['notes.save', ['name' => 'Groceries'], 1], [$calls[0]['tool'], (array) $calls[0]['input'], $calls[0]['rev']]);
        $this->bridge($this->ada, $this->chat, $this->needsConfirmation($calls[0]['id'], 'k2', 'page-B'))->assertNoContent();
        $this->assertCount(1, Bus::dispatched(ContinueAgentTurn::class), 'the agent already has its needs_confirmation: asking again adds none');

        $this->bridge($this->ada, $this->chat, $this->confirmed('k2', 'page-B'))->assertNoContent();
        Bus::assertDispatchedTimes(RunFollowUpTurn::class, 1);
        $outcomes = $this->outcomes();
        $this->assertCount(1, $outcomes);
        $this->assertSame(['role' => 'tool', 'toolCallId' => 'tc1', 'name' => 'page_call', 'confirmId' => 'k2'], array_intersect_key(json_decode($outcomes[0]->agent, true), array_flip(['role', 'toolCallId', 'name', 'confirmId'])));

        // The old page load's late `confirmed` (sent as it unloaded) is refused as expired: no second follow-up.
        $this->bridge($this->ada, $this->chat, $this->confirmed('k1', 'page-A'))->assertNoContent();
        $this->assertSame(['expired_confirm'], $this->rejections());
        Bus::assertDispatchedTimes(RunFollowUpTurn::class, 1);
        // A later reload asks nothing: the decision is made.
        $this->assertSame([], $this->reload('page-C'));
        $this->assertSame('decided', DB::table('toolmark_decisions')->value('state'));
    }

    public function test_a_tool_not_listed_yet_is_asked_on_a_later_manifest_of_the_same_page_load_once(): void
    {
        $this->cardPending();
        $this->gone('page-A');
        $this->assertSame([], $this->reload('page-B', ['name' => 'notes.search', 'description' => 'Search']));
        $this->assertCount(1, $this->reload('page-B', self::SAVE, 2));
        $this->assertSame([], $this->reload('page-B', self::SAVE, 3), 'asked once per page load');
    }

    public function test_a_manifest_handled_beside_the_one_that_rebinds_still_asks_the_new_page_load(): void
    {
        $this->cardPending();
        $this->gone('page-A');
        // A request of page-B's read the conversation before page-B's first manifest rebound it (a page load's
        // manifests are POSTed one right after the other and handled side by side).
        $stale = Conversation::query()->findOrFail($this->chat->id);
        $this->assertSame([], $this->reload('page-B', ['name' => 'notes.search', 'description' => 'Search']));
        DB::table('toolmark_pages')->where('client_id', 'page-B')->update(['rev' => 2, 'tools' => json_encode([self::SAVE])]);
        $before = count($this->broadcasts->messages());
        (new Decisions(app(Toolmark::class)))->reask($stale, 'page-B', 2, [self::SAVE]);
        $calls = array_values(array_filter(
            array_slice($this->broadcasts->messages(), $before),
            fn (array $m): bool => $m['type'] === 'call',
        ));
        $this->assertCount(1, $calls);
        $this->assertSame('page-B', $calls[0]['clientId']);
    }

    public function test_when_the_reloaded_page_answers_first_the_old_tabs_card_is_withdrawn_with_a_cancel(): void
    {
        $callA = $this->cardPending();
        $calls = $this->reload('page-B'); // the old tab stays open
        $this->assertCount(1, $calls);
        $this->bridge($this->ada, $this->chat, $this->needsConfirmation($calls[0]['id'], 'k2', 'page-B'))->assertNoContent();
        $this->bridge($this->ada, $this->chat, $this->confirmed('k2', 'page-B'))->assertNoContent();

        $cancel = array_values(array_filter($this->broadcasts->messages(), fn (array $m): bool => $m['type'] === 'cancel'));
        $this->assertSame([['protocol' => 1, 'type' => 'cancel', 'clientId' => 'page-A', 'id' => $callA]], $cancel);
        $this->assertSame('expired', DB::table('toolmark_confirmations')->where('confirm_id', 'k1')->value('state'));
        // A late approval in the old tab counts for nothing.
        $this->bridge($this->ada, $this->chat, $this->confirmed('k1', 'page-A'))->assertNoContent();
        $this->assertSame(['expired_confirm'], $this->rejections());
        Bus::assertDispatchedTimes(RunFollowUpTurn::class, 1);
        $this->assertCount(1, $this->outcomes());
    }

    public function test_two_cards_answered_at_once_the_first_counts_and_the_other_is_refused_as_expired(): void
    {
        $this->cardPending();
        $calls = $this->reload('page-B');
        $this->bridge($this->ada, $this->chat, $this->needsConfirmation($calls[0]['id'], 'k2', 'page-B'))->assertNoContent();
        $this->bridge($this->ada, $this->chat, $this->confirmed('k1', 'page-A'))->assertNoContent();
        // The other answer was read while its card was still pending (another worker): the decision is already made.
        DB::table('toolmark_confirmations')->where('confirm_id', 'k2')->update(['state' => 'pending']);
        $this->bridge($this->ada, $this->chat, $this->confirmed('k2', 'page-B'))->assertNoContent();

        $this->assertSame(['expired_confirm'], $this->rejections());
        $this->assertStringContainsString('answered on another page load', (string) file_get_contents(storage_path('logs/laravel.log')));
        Bus::assertDispatchedTimes(RunFollowUpTurn::class, 1);
        $this->assertCount(1, $this->outcomes());
        $this->assertSame('k1', json_decode($this->outcomes()[0]->agent, true)['confirmId']);
    }

    public function test_a_reloaded_page_with_a_changed_tool_is_asked_nothing_and_the_agent_is_told_stale(): void
    {
        $this->cardPending();
        $this->gone('page-A');
        $this->assertSame([], $this->reload('page-B', ['description' => 'Save a note, and share it with the team'] + self::SAVE));
        $told = $this->toolLines();
        $this->assertCount(1, $told);
        $this->assertStringContainsString('confirmation withdrawn', $told[0]->text);
        $stale = ['status' => 'refused', 'code' => 'stale', 'message' => Wire::REFUSED_MESSAGES['staleTool'], 'rev' => 1];
        $this->assertSame(['role' => 'tool', 'toolCallId' => 'tc1', 'name' => 'page_call', 'content' => Llm::json(Llm::wrapUntrusted($stale))], json_decode($told[0]->agent, true));
    }

    public function test_a_reloaded_page_that_answers_without_asking_ends_the_decision_and_the_agent_gets_that_result(): void
    {
        $this->cardPending();
        $this->gone('page-A');
        $calls = $this->reload('page-B');
        $refused = ['status' => 'refused', 'code' => 'unknown_tool', 'message' => 'Unknown tool'];
        $this->bridge($this->ada, $this->chat, ['protocol' => 1, 'type' => 'result', 'clientId' => 'page-B', 'id' => $calls[0]['id'], 'result' => $refused])->assertNoContent();
        $told = $this->toolLines();
        $this->assertCount(1, $told);
        $this->assertSame(Llm::json(Llm::wrapUntrusted($refused)), json_decode($told[0]->agent, true)['content']);
        $this->assertSame([], $this->reload('page-C'));
        Bus::assertNotDispatched(RunFollowUpTurn::class);
    }

    public function test_a_decision_past_the_confirmation_lifetime_is_not_asked_again_and_the_agent_is_told_it_expired(): void
    {
        $this->cardPending();
        $this->gone('page-A');
        $this->assertSame([], $this->toolLines());
        Carbon::setTestNow(now()->addMilliseconds(Wire::CONFIRM_TTL_MS + 1000));
        $this->assertSame([], $this->reload('page-B'));
        $told = $this->toolLines();
        $this->assertCount(1, $told);
        $this->assertSame('confirmation withdrawn: notes.save → refused (its time to approve it ran out)', $told[0]->text);
        $this->assertSame(['role' => 'tool', 'toolCallId' => 'tc1', 'name' => 'page_call', 'content' => Llm::json(Llm::wrapUntrusted(Wire::EXPIRED_RESULT))], json_decode($told[0]->agent, true));
        $this->reload('page-C');
        $this->assertCount(1, $this->toolLines(), 'told once');
    }

    public function test_an_approval_past_the_lifetime_is_told_once_and_no_later_page_load_asks_it_again(): void
    {
        $this->cardPending();
        Carbon::setTestNow(now()->addMilliseconds(Wire::CONFIRM_TTL_MS + 1000));
        $this->bridge($this->ada, $this->chat, $this->confirmed('k1', 'page-A'))->assertNoContent();
        $this->assertSame(['expired_confirm'], $this->rejections());
        $expired = Llm::json(Llm::wrapUntrusted(Wire::EXPIRED_RESULT));
        $told = fn (): int => count(array_filter($this->toolLines(), fn (object $m): bool => json_decode($m->agent, true)['content'] === $expired));
        $this->assertSame(1, $told());
        $this->assertSame('dropped', DB::table('toolmark_decisions')->value('state'));
        $this->gone('page-A');
        $this->assertSame([], $this->reload('page-B'));
        $this->assertSame(1, $told());
        Bus::assertNotDispatched(RunFollowUpTurn::class);
    }

    public function test_no_secret_of_the_pending_call_is_stored_it_is_never_asked_again_and_the_agent_is_told_it_expired(): void
    {
        $secret = 'correct-horse-battery-staple';
        $this->page($this->ada, $this->chat, 'page-A', 2, [['sensitivePaths' => ['passphrase']] + self::SAVE])->assertNoContent();
        $this->app->instance(AgentModel::class, new ScriptedModel([ScriptedModel::pageCall('notes.save', ['name' => 'N', 'passphrase' => $secret], 'tc1'), 'Approve it in the page.']));
        $this->chat->messages()->create(['role' => 'user', 'text' => 'save it', 'agent' => ['role' => 'user', 'text' => 'save it']]);
        $this->app->make(AgentLoop::class)->step($this->chat->refresh());
        $call = $this->broadcasts->messages()[0];
        $this->assertSame($secret, $call['input']->passphrase, 'the page gets the input as the model wrote it');
        $this->bridge($this->ada, $this->chat, $this->needsConfirmation($call['id'], 'k1', 'page-A'))->assertNoContent();

        // The input holds a value at a sensitive path: the decision keeps no input, and the call none either.
        $decision = DB::table('toolmark_decisions')->first();
        $this->assertNotNull($decision);
        $this->assertNull($decision->input);
        $this->assertStringNotContainsString($secret, json_encode(DB::table('toolmark_decisions')->get()));
        $this->assertStringNotContainsString($secret, json_encode(DB::table('toolmark_calls')->pluck('input')));
        $this->gone('page-A');
        $this->assertSame([], $this->reload('page-B', ['sensitivePaths' => ['passphrase']] + self::SAVE));
        $line = DB::table('conversation_messages')->where('conversation_id', $this->chat->id)->latest('id')->first();
        $this->assertSame(['tool', 'confirmation expired: Save Groceries (the page that asked for it is gone)'], [$line->role, $line->text]);
        $this->assertSame('dropped', DB::table('toolmark_decisions')->value('state'));
    }

    public function test_an_app_call_or_a_tool_the_manifest_does_not_list_keeps_no_decision(): void
    {
        $id = app(Toolmark::class)->call($this->chat, 'notes.save', ['name' => 'X']);
        $this->bridge($this->ada, $this->chat, $this->needsConfirmation((string) $id, 'k-app', 'page-A'))->assertNoContent();
        $id = app(Toolmark::class)->send($this->chat, 'tc9', 'call', 'notes.unlisted', ['name' => 'X'], 1);
        $this->bridge($this->ada, $this->chat, $this->needsConfirmation((string) $id, 'k-unlisted', 'page-A'))->assertNoContent();
        $this->assertSame(0, DB::table('toolmark_decisions')->count());
        $this->gone('page-A');
        $this->assertSame([], $this->reload('page-B'));
        $this->assertCount(1, $this->toolLines(), 'the agent is told its unlisted card expired');
    }
}
