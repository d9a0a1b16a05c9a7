<?php

namespace Toolmark\Laravel\Tests\Feature;

use Illuminate\Auth\Access\AuthorizationException;
use Illuminate\Support\Facades\DB;
use Illuminate\Support\Facades\Event;
use Illuminate\Support\Facades\Gate;
use PHPUnit\Framework\AssertionFailedError;
use Toolmark\Laravel\Agent\AgentLoop;
use Toolmark\Laravel\Agent\AgentModel;
use Toolmark\Laravel\Events\CallCompleted;
use Toolmark\Laravel\Events\CallRequested;
use Toolmark\Laravel\Events\ConfirmationRequested;
use Toolmark\Laravel\Events\ConfirmationResolved;
use Toolmark\Laravel\Facades\Toolmark;
use Toolmark\Laravel\Testing\ScriptedModel;
use Toolmark\Laravel\Tests\TestCase;

/** Toolmark::call, the package's Laravel events, the Gate, and Toolmark::fake() with its assertions. */
final class FakeTest extends TestCase
{
    public function test_toolmark_call_sends_a_bound_call_and_its_result_fires_call_completed_not_an_agent_turn(): void
    {
        $events = [];
        Event::listen([CallRequested::class, CallCompleted::class], function (object $e) use (&$events): void {
            $events[] = $e;
        });
        $ada = $this->user();
        $chat = $this->conversation($ada);
        $id = Toolmark::call($chat, 'challenges.list', ['q' => 'chess']);
        Toolmark::call($chat, 'billing.update', ['number' => '4242 4242 4242 4242', 'cvc' => '123']);
        $this->assertSame(['type' => 'call', 'tool' => 'challenges.list', 'input' => ['q' => 'chess']], array_intersect_key(
            json_decode(json_encode($this->broadcasts->messages()[0]), true),
            ['type' => 1, 'tool' => 1, 'input' => 1],
        ));
        $this->bridge($ada, $chat, ['protocol' => 1, 'type' => 'result', 'clientId' => 'page-1', 'id' => $id, 'result' => ['status' => 'ok', 'data' => 'card 4242 4242 4242 4242']])->assertNoContent();
        $this->assertInstanceOf(CallRequested::class, $events[0]);
        $this->assertSame('app', $events[0]->origin);
        $this->assertSame(['q' => 'chess'], $events[0]->input);
        $this->assertSame(['number' => '**** 4242', 'cvc' => '[redacted]'], $events[1]->input, 'events carry masked inputs');
        $this->assertSame('4242 4242 4242 4242', $this->broadcasts->messages()[1]['input']->number, 'the page gets the input as written');
        $this->assertInstanceOf(CallCompleted::class, $events[2]);
        $this->assertSame(['status' => 'ok', 'data' => 'card **** 4242'], $events[2]->result, 'events carry masked results');
        $this->assertSame(0, DB::table('jobs')->where('payload', 'like', '%ContinueAgentTurn%')->count(), 'an app call is not part of an agent turn');
        $this->assertSame(0, $chat->messages()->count());
    }

    public function test_toolmark_call_returns_null_without_a_page_and_throws_when_the_gate_refuses(): void
    {
        $ada = $this->user();
        $this->assertNull(Toolmark::call($this->conversation($ada, null), 'challenges.list'));
        Gate::define('toolmark.call', fn ($user, string $tool): bool => $tool === 'challenges.list');
        $chat = $this->conversation($ada, 'page-2');
        $this->assertNotNull(Toolmark::call($chat, 'challenges.list'));
        $this->expectException(AuthorizationException::class);
        Toolmark::call($chat, 'challenges.delete');
    }

    public function test_confirmation_events_fire_when_the_page_asks_and_when_the_user_answers(): void
    {
        $events = [];
        Event::listen([ConfirmationRequested::class, ConfirmationResolved::class], function (object $e) use (&$events): void {
            $events[] = $e;
        });
        $ada = $this->user();
        $chat = $this->conversation($ada);
        $id = Toolmark::call($chat, 'challenges.delete', ['id' => 3]);
        $this->bridge($ada, $chat, ['protocol' => 1, 'type' => 'result', 'clientId' => 'page-1', 'id' => $id, 'result' => ['status' => 'needs_confirmation', 'confirmId' => 'c-9', 'summary' => 'Delete Chess']]);
        $this->bridge($ada, $chat, ['protocol' => 1, 'type' => 'confirmed', 'clientId' => 'page-1', 'confirmId' => 'c-9', 'result' => ['status' => 'cancelled', 'by' => 'operator']]);
        $this->assertSame(['c-9', 'Delete Chess'], [$events[0]->confirmId, $events[0]->summary]);
        $this->assertSame(['c-9', ['status' => 'cancelled', 'by' => 'operator']], [$events[1]->confirmId, $events[1]->result]);
        $this->assertSame(0, DB::table('jobs')->where('payload', 'like', '%RunFollowUpTurn%')->count(), 'no follow-up turn for an app call');
    }

    public function test_the_fake_records_calls_answers_them_like_a_page_and_asserts(): void
    {
        $fake = Toolmark::fake()
            ->respond('challenges.list', ['status' => 'ok', 'data' => []])
            ->respond('challenges.delete', fn (array $input): array => ['status' => 'needs_confirmation', 'confirmId' => "del-{$input['id']}", 'summary' => 'Delete']);
        $this->app->instance(AgentModel::class, $model = new ScriptedModel([
            ScriptedModel::pageCall('challenges.delete', ['id' => 3], 't1'),
            'Confirm it in the page.',
        ]));
        config(['queue.default' => 'sync']); // the app's tests usually run jobs at once
        $ada = $this->user();
        $chat = $this->conversation($ada);

        $fake->assertNothingCalled();
        $this->app->make(AgentLoop::class)->step($chat);
        $fake->assertToolCalled('challenges.delete');
        $fake->assertToolCalled('challenges.delete', ['id' => 3]);
        $fake->assertToolCalled('challenges.delete', fn (array $input): bool => $input['id'] === 3);
        $fake->assertToolNotCalled('challenges.list');
        $fake->assertConfirmationRequested('challenges.delete');
        $fake->assertConfirmationRequested();
        $this->assertSame([], $this->broadcasts->messages(), 'the fake sends nothing to the page');
        $this->assertSame('del-3', DB::table('toolmark_confirmations')->value('confirm_id'), 'answered through the real bridge checks');
        $this->assertSame('Confirm it in the page.', $chat->messages()->where('role', 'assistant')->latest('id')->value('text'), 'and the agent loop went on');
        // The page answered while the step was still sending: that answer continues the turn, the step does not run again.
        $this->assertCount(2, $model->requests);

        foreach ([
            fn () => $fake->assertToolCalled('challenges.list'),
            fn () => $fake->assertToolCalled('challenges.delete', ['id' => 4]),
            fn () => $fake->assertToolNotCalled('challenges.delete'),
            fn () => $fake->assertConfirmationRequested('challenges.list'),
            fn () => $fake->assertNothingCalled(),
        ] as $i => $failing) {
            try {
                $failing();
                $this->fail("assertion {$i} passed");
            } catch (AssertionFailedError $error) {
                $this->assertStringNotContainsString('passed', $error->getMessage());
            }
        }
    }
}
