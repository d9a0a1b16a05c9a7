<?php

namespace Toolmark\Laravel\Tests\Feature;

use Illuminate\Support\Facades\Bus;
use Illuminate\Support\Facades\DB;
use Illuminate\Support\Facades\Event;
use Toolmark\Laravel\Agent\AgentLoop;
use Toolmark\Laravel\Events\ConfirmationRequested;
use Toolmark\Laravel\Generated\Wire;
use Toolmark\Laravel\Jobs\ContinueAgentTurn;
use Toolmark\Laravel\Jobs\ExpireCall;
use Toolmark\Laravel\Jobs\RunFollowUpTurn;
use Toolmark\Laravel\Llm;
use Toolmark\Laravel\Tests\TestCase;
use Toolmark\Laravel\Toolmark;

/** What a model is handed is bounded as @toolmark/server bounds it, with the protocol's limits. */
final class ProviderBoundsTest extends TestCase
{
    public function test_the_limits_are_the_protocols(): void
    {
        $this->assertSame([32768, 24576], [Wire::MAX_PROVIDER_TEXT, Wire::MAX_MANIFEST_CHARS]);
    }

    public function test_a_page_result_over_the_limit_is_replaced_by_an_error_the_model_can_read(): void
    {
        $ada = $this->user('ada');
        $chat = $this->conversation($ada, 'page-1', [['name' => 'notes.read', 'description' => 'Read']]);
        $loop = app(AgentLoop::class);
        $big = str_repeat('x', 40000);
        $loop->answer($chat, 'tc_1', 'notes.read', ['status' => 'ok', 'data' => $big]);
        $loop->answer($chat, 'tc_2', 'notes.read', ['status' => 'ok', 'data' => str_repeat('y', 30000)]);
        $contents = $chat->messages()->where('role', 'tool')->orderBy('id')->get()->map(fn ($m) => $m->agent['content'])->all();
        $this->assertSame(
            Llm::json(['status' => 'error', 'message' => "The page's result is too large for the model (40025 characters; the limit is 32768)"]),
            $contents[0],
        );
        $this->assertSame(Llm::json(['status' => 'ok', 'data' => str_repeat('y', 30000)]), $contents[1], 'a result within the limit is kept');
        // What the model is handed is what is stored.
        $this->assertSame($contents, array_column(array_values(array_filter($chat->agentHistory(), fn ($m) => $m['role'] === 'tool')), 'content'));
    }

    public function test_a_confirmed_outcome_over_the_limit_is_replaced_too(): void
    {
        Bus::fake([ContinueAgentTurn::class, RunFollowUpTurn::class, ExpireCall::class]);
        $ada = $this->user('ada');
        $chat = $this->conversation($ada, 'page-1', [['name' => 'notes.delete', 'description' => 'Delete']]);
        $id = (string) app(Toolmark::class)->send($chat, 'tc_1', 'call', 'notes.delete', []);
        $this->bridge($ada, $chat, ['protocol' => 1, 'type' => 'result', 'clientId' => 'page-1', 'id' => $id, 'result' => ['status' => 'needs_confirmation', 'confirmId' => 'c-1', 'summary' => 'Delete']])->assertNoContent();
        $this->bridge($ada, $chat, ['protocol' => 1, 'type' => 'confirmed', 'clientId' => 'page-1', 'confirmId' => 'c-1', 'result' => ['status' => 'ok', 'data' => str_repeat('z', 40000)]])->assertNoContent();
        $content = $chat->messages()->where('role', 'tool')->first()->agent['content'];
        $this->assertLessThan(200, strlen($content));
        $this->assertStringStartsWith("The page's result is too large for the model (", (string) (json_decode($content, true)['message'] ?? ''));
    }

    public function test_a_needs_confirmation_summary_is_cut_before_it_is_stored_or_announced(): void
    {
        Bus::fake([ContinueAgentTurn::class, RunFollowUpTurn::class, ExpireCall::class]);
        Event::fake([ConfirmationRequested::class]);
        $ada = $this->user('ada');
        $chat = $this->conversation($ada, 'page-1', [['name' => 'notes.delete', 'description' => 'Delete']]);
        $id = (string) app(Toolmark::class)->send($chat, 'tc_1', 'call', 'notes.delete', []);
        $this->bridge($ada, $chat, ['protocol' => 1, 'type' => 'result', 'clientId' => 'page-1', 'id' => $id, 'result' => [
            'status' => 'needs_confirmation', 'confirmId' => 'c-1', 'summary' => str_repeat('s', 40000),
        ]])->assertNoContent();
        $this->assertSame(32768, strlen((string) DB::table('toolmark_confirmations')->where('confirm_id', 'c-1')->value('summary')));
        Event::assertDispatched(ConfirmationRequested::class, fn (ConfirmationRequested $e) => strlen($e->summary) === 32768);
        Bus::assertDispatched(ContinueAgentTurn::class, fn (ContinueAgentTurn $job) => strlen($job->result['summary']) === 32768);
    }

    public function test_texts_are_cut_to_the_limit_in_utf16_code_units_without_splitting_a_character(): void
    {
        $this->assertSame('short', Llm::cut('short'));
        $this->assertSame(32768, Llm::units(Llm::cut(str_repeat('a', 40000))));
        // 16383 emoji (two code units each) fit in 32766 units; one more would be 32768 (fits), two more 32770.
        $cut = Llm::cut('a'.str_repeat("\u{1F600}", 20000));
        $this->assertSame(32767, Llm::units($cut));
        $this->assertSame('a'.str_repeat("\u{1F600}", 16383), $cut);
    }

    public function test_the_manifest_offers_the_tools_that_fit_in_the_pages_order(): void
    {
        $tool = fn (string $name, int $length) => ['name' => $name, 'description' => str_repeat('d', $length)];
        // 10000 + 64 + name each: two fit in 24576, the third does not; a small one after it still fits.
        $tools = [$tool('a.one', 10000), $tool('b.two', 10000), $tool('c.three', 10000), $tool('d.four', 100)];
        $this->assertSame(['a.one', 'b.two', 'd.four'], array_column(Llm::boundManifest($tools), 'name'));
        $small = [$tool('a.one', 10), $tool('b.two', 10)];
        $this->assertSame($small, Llm::boundManifest($small));
        // page_call's description stays within the provider limit whatever the page sends.
        $many = array_map(fn (int $i) => $tool("t.{$i}", 1000), range(1, 200));
        $description = Llm::pageCallTool($many)['description'];
        $this->assertLessThanOrEqual(Wire::MAX_PROVIDER_TEXT, Llm::units($description));
        $this->assertStringContainsString('- t.1 — ', $description);
        $this->assertStringNotContainsString('- t.200 — ', $description);
    }
}
