<?php

namespace Toolmark\Laravel\Tests\Feature;

use Toolmark\Laravel\Agent\AgentModel;
use Toolmark\Laravel\Generated\Wire;
use Toolmark\Laravel\Models\Conversation;
use Toolmark\Laravel\Testing\ScriptedModel;
use Toolmark\Laravel\Tests\App\User;
use Toolmark\Laravel\Tests\TestCase;

/**
 * The opt-in `context` extension of bridge protocol v1, as @toolmark/server has it: the offer is accepted, the
 * page load's latest context is kept masked, and each turn's model request carries it as marked page data right
 * before the latest user message. A page that sent none adds nothing; another conversation's page load, a
 * context too large or older than the kept one is refused.
 */
final class PageContextTest extends TestCase
{
    private const CARD = '4242 4242 4242 4242';

    private ScriptedModel $model;

    private User $ada;

    private Conversation $chat;

    private int $rev = 0;

    protected function setUp(): void
    {
        parent::setUp();
        $this->model = new ScriptedModel(['One.', 'Two.', 'Three.']);
        $this->app->instance(AgentModel::class, $this->model);
        $this->ada = $this->user('ada');
        $this->chat = $this->conversation($this->ada, 'page-1', [['name' => 'search', 'description' => 'Search', 'hints' => ['readOnly' => true]]]);
    }

    private function context(array $entries, ?int $rev = null, string $clientId = 'page-1'): void
    {
        $this->bridge($this->ada, $this->chat, ['protocol' => 1, 'type' => 'context', 'clientId' => $clientId, 'rev' => $rev ?? ++$this->rev, 'entries' => $entries])->assertNoContent();
    }

    /** Sends a chat message and returns the messages of the model request it caused. */
    private function say(string $text): array
    {
        $this->actingAs($this->ada)->withSession(['_token' => 't'])
            ->postJson("/toolmark/conversations/{$this->chat->id}/messages", ['text' => $text], ['X-CSRF-TOKEN' => 't'])
            ->assertStatus(202);
        (fn () => $this->terminatingCallbacks = [])->call($this->app);

        return end($this->model->requests)['messages'];
    }

    /** The entries of the request's context message, or null when it has none. */
    private static function contextOf(array $messages): ?array
    {
        $note = Wire::EXTENSIONS['contextNote'];
        $found = array_values(array_filter($messages, fn (array $m): bool => $m['role'] === 'user' && ($m['pageData'] ?? false) === true && str_starts_with($m['text'], $note)));

        return $found === [] ? null : json_decode(substr($found[0]['text'], strlen($note) + 1), true);
    }

    public function test_an_offer_of_context_is_accepted_beside_progress(): void
    {
        $this->bridge($this->ada, $this->chat, ['protocol' => 1, 'type' => 'extensions', 'clientId' => 'page-1', 'offer' => ['context', 'progress']])->assertNoContent();
        $this->assertSame(
            [['protocol' => 1, 'type' => 'extensions', 'clientId' => 'page-1', 'accept' => ['context', 'progress']]],
            json_decode((string) json_encode($this->broadcasts->messages()), true),
        );
    }

    public function test_the_model_sees_the_pages_latest_context_masked_and_marked_before_the_users_message(): void
    {
        $this->context([
            ['name' => 'orders.current', 'description' => 'The order on screen', 'value' => ['id' => 7, 'card' => self::CARD]],
            ['name' => 'selection', 'description' => 'Selected rows', 'value' => [1, 2]],
        ]);
        $first = $this->say('what is this order?');
        $this->assertSame([
            ['name' => 'orders.current', 'description' => 'The order on screen', 'value' => ['id' => 7, 'card' => '**** 4242']],
            ['name' => 'selection', 'description' => 'Selected rows', 'value' => [1, 2]],
        ], self::contextOf($first));
        $this->assertSame(['role' => 'user', 'text' => 'what is this order?'], end($first));
        $this->assertSame('user', $first[count($first) - 2]['role']);

        $this->context([['name' => 'selection', 'description' => 'Selected rows', 'value' => [3]]]);
        $second = $this->say('and now?');
        $this->assertSame([['name' => 'selection', 'description' => 'Selected rows', 'value' => [3]]], self::contextOf($second));
        $this->assertSame($this->model->requests[0]['system'], $this->model->requests[1]['system']);
        $this->assertSame(json_encode($this->model->requests[0]['tools']), json_encode($this->model->requests[1]['tools']));
        $this->assertStringNotContainsString(self::CARD, (string) json_encode($this->model->requests));
        $this->assertSame([], $this->rejections());
    }

    public function test_a_page_that_sent_no_context_or_an_empty_one_adds_nothing(): void
    {
        $this->assertNull(self::contextOf($this->say('hello')));
        $this->context([['name' => 'selection', 'description' => 'Selected rows', 'value' => [1]]]);
        $this->context([]);
        $this->assertNull(self::contextOf($this->say('and now?')));
    }

    public function test_an_older_a_too_large_or_another_conversations_context_is_refused(): void
    {
        $this->context([['name' => 'selection', 'description' => 'Selected rows', 'value' => [2]]], 5);
        $this->context([['name' => 'selection', 'description' => 'Selected rows', 'value' => [1]]], 4);
        $big = str_repeat('x', intdiv(Wire::EXTENSIONS['maxContextTotal'], 2));
        $this->context([['name' => 'a', 'description' => 'd', 'value' => $big], ['name' => 'b', 'description' => 'd', 'value' => $big]], 6);
        $other = $this->conversation($this->ada, 'page-2');
        $this->context([['name' => 'x', 'description' => 'd', 'value' => 1]], 7, 'page-2');
        $this->assertSame(['old_rev', 'invalid', 'mismatch'], $this->rejections());
        $this->assertSame([['name' => 'selection', 'description' => 'Selected rows', 'value' => [2]]], self::contextOf($this->say('which rows?')));
        $this->assertNotNull($other->id);
    }
}
