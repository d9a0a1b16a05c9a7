<?php

namespace Toolmark\Laravel\Tests\Feature;

use Illuminate\Support\Facades\Bus;
use Illuminate\Support\Facades\Cache;
use Illuminate\Support\Facades\DB;
use Toolmark\Laravel\Generated\Wire;
use Toolmark\Laravel\Jobs\ContinueAgentTurn;
use Toolmark\Laravel\Jobs\ExpireCall;
use Toolmark\Laravel\Jobs\RunFollowUpTurn;
use Toolmark\Laravel\Models\Conversation;
use Toolmark\Laravel\Tests\App\User;
use Toolmark\Laravel\Tests\TestCase;
use Toolmark\Laravel\Toolmark;

/**
 * The opt-in `progress` extension of bridge protocol v1, as @toolmark/server has it: the offer is accepted, a
 * running call's progress goes to the chat as `.toolmark.progress` (masked, rate-limited, never past the call's
 * end or deadline), and what is not a pending call of this page load is refused.
 */
final class ProgressTest extends TestCase
{
    private const CARD = '4242 4242 4242 4242';

    private User $ada;

    private Conversation $chat;

    protected function setUp(): void
    {
        parent::setUp();
        Bus::fake([ContinueAgentTurn::class, RunFollowUpTurn::class, ExpireCall::class]);
        $this->ada = $this->user('ada');
        $this->chat = $this->conversation($this->ada, 'page-1', [['name' => 'upload', 'description' => 'Upload', 'hints' => ['readOnly' => true]]]);
    }

    private function progress(string $id, array $fields, string $clientId = 'page-1'): array
    {
        return ['protocol' => 1, 'type' => 'progress', 'clientId' => $clientId, 'id' => $id] + $fields;
    }

    /** @return list<array<string, mixed>> */
    private function progressEvents(): array
    {
        return array_values(array_map(
            fn (array $s): array => array_diff_key($s['payload'], ['socket' => true]),
            array_filter($this->broadcasts->sent, fn (array $s): bool => $s['event'] === Wire::NAMES['progressEvent']),
        ));
    }

    public function test_an_offer_is_answered_on_the_channel_with_the_extensions_it_takes(): void
    {
        $this->bridge($this->ada, $this->chat, ['protocol' => 1, 'type' => 'extensions', 'clientId' => 'page-1', 'offer' => ['progress', 'not-yet']])->assertNoContent();
        $this->assertSame(
            [['protocol' => 1, 'type' => 'extensions', 'clientId' => 'page-1', 'accept' => ['progress']]],
            json_decode((string) json_encode($this->broadcasts->messages()), true),
        );
        $this->assertSame([], $this->rejections());
    }

    public function test_a_running_calls_progress_goes_to_the_chat_masked_without_its_data(): void
    {
        $id = (string) app(Toolmark::class)->send($this->chat, 'tc_1', 'call', 'upload', []);
        $this->bridge($this->ada, $this->chat, $this->progress($id, ['fraction' => 0.5, 'message' => 'Charging card '.self::CARD, 'data' => ['card' => self::CARD]]))->assertNoContent();
        $this->assertSame([['callId' => 'tc_1', 'progress' => ['fraction' => 0.5, 'message' => 'Charging card **** 4242']]], $this->progressEvents());
        $this->assertStringNotContainsString(self::CARD, (string) json_encode($this->broadcasts->sent));
    }

    public function test_progress_for_a_call_it_never_made_or_another_page_loads_is_refused_and_an_answered_one_dropped(): void
    {
        $id = (string) app(Toolmark::class)->send($this->chat, 'tc_1', 'call', 'upload', []);
        $this->bridge($this->ada, $this->chat, $this->progress('never-issued', ['fraction' => 0.1]))->assertNoContent();
        $this->bridge($this->ada, $this->chat, $this->progress($id, ['fraction' => 0.2], 'page-2'))->assertNoContent();
        $this->assertSame(['unknown_id', 'mismatch'], $this->rejections());
        DB::table('toolmark_calls')->where('id', $id)->update(['state' => 'answered']);
        $this->bridge($this->ada, $this->chat, $this->progress($id, ['fraction' => 0.9]))->assertNoContent();
        $this->assertSame([], $this->progressEvents());
        $this->assertSame(['unknown_id', 'mismatch'], $this->rejections());
    }

    public function test_progress_past_the_deadline_is_dropped_and_never_extends_it(): void
    {
        $id = (string) app(Toolmark::class)->send($this->chat, 'tc_1', 'call', 'upload', []);
        $deadline = DB::table('toolmark_calls')->where('id', $id)->value('deadline_ms');
        DB::table('toolmark_calls')->where('id', $id)->update(['deadline_ms' => 1]);
        $this->bridge($this->ada, $this->chat, $this->progress($id, ['message' => 'late']))->assertNoContent();
        $this->assertSame([], $this->progressEvents());
        $this->assertSame('1', (string) DB::table('toolmark_calls')->where('id', $id)->value('deadline_ms'));
        $this->assertNotNull($deadline);
    }

    public function test_at_most_the_limit_per_second_is_passed_on(): void
    {
        $id = (string) app(Toolmark::class)->send($this->chat, 'tc_1', 'call', 'upload', []);
        for ($i = 1; $i <= 40; $i++) {
            $this->bridge($this->ada, $this->chat, $this->progress($id, ['fraction' => $i / 40]))->assertNoContent();
        }
        $count = count($this->progressEvents());
        $this->assertGreaterThan(0, $count);
        $this->assertLessThanOrEqual(2 * Wire::EXTENSIONS['maxProgressPerSecond'], $count, 'at most the limit in each of two one-second windows');
        $this->assertLessThan(40, $count);
    }

    public function test_a_counter_that_lost_counts_lets_no_more_than_the_limit_through(): void
    {
        // Concurrent workers on the file or database cache lose increments of a shared counter. Here the counter is
        // put back to 0 once the second is full, as lost counts would leave it: the second's slots still hold.
        $id = (string) app(Toolmark::class)->send($this->chat, 'tc_1', 'call', 'upload', []);
        $max = Wire::EXTENSIONS['maxProgressPerSecond'];
        for ($try = 0; $try < 3; $try++) {
            usleep((1000 - (int) (microtime(true) * 1000) % 1000) * 1000); // the start of a second
            $second = intdiv((int) floor(microtime(true) * 1000), 1000);
            $before = count($this->progressEvents());
            for ($i = 0; $i < $max; $i++) {
                $this->bridge($this->ada, $this->chat, $this->progress($id, ['fraction' => 0.5]))->assertNoContent();
            }
            Cache::put('toolmark:progress:'.hash('sha256', 'page-1').':'.$second, 0, 2);
            $this->bridge($this->ada, $this->chat, $this->progress($id, ['fraction' => 0.6]))->assertNoContent();
            if (intdiv((int) floor(microtime(true) * 1000), 1000) !== $second) {
                continue; // the second ended during the burst (a slow machine): again, in a fresh one
            }
            $this->assertSame($max, count($this->progressEvents()) - $before);

            return;
        }
        $this->fail('no burst of the limit fitted in one second, three times');
    }

    public function test_a_malformed_extension_message_is_rejected_invalid(): void
    {
        $this->bridge($this->ada, $this->chat, ['protocol' => 1, 'type' => 'progress', 'clientId' => 'page-1', 'id' => 'x', 'fraction' => 2])->assertNoContent();
        $this->assertSame(['invalid'], $this->rejections());
    }
}
