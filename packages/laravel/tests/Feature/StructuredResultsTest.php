<?php

namespace Toolmark\Laravel\Tests\Feature;

use Illuminate\Support\Facades\Bus;
use Toolmark\Laravel\Agent\AgentModel;
use Toolmark\Laravel\Generated\Wire;
use Toolmark\Laravel\Jobs\ContinueAgentTurn;
use Toolmark\Laravel\Jobs\RunFollowUpTurn;
use Toolmark\Laravel\Llm;
use Toolmark\Laravel\Models\Conversation;
use Toolmark\Laravel\Testing\ScriptedModel;
use Toolmark\Laravel\Tests\App\User;
use Toolmark\Laravel\Tests\TestCase;
use Toolmark\Laravel\Toolmark;

/**
 * What the model gets for a `structured` tool (one that declares an output schema): an `ok` result's
 * data plus Wire::STRUCTURED_NOTE, the same JSON as @toolmark/server's `modelResult`.
 */
final class StructuredResultsTest extends TestCase
{
    private User $ada;

    private Conversation $chat;

    private const TOOLS = [
        ['name' => 'account.read', 'description' => 'Read', 'hints' => ['readOnly' => true], 'structured' => true],
        ['name' => 'notes.read', 'description' => 'Read', 'hints' => ['readOnly' => true, 'untrustedContent' => true], 'structured' => true],
        ['name' => 'plain.read', 'description' => 'Read', 'hints' => ['readOnly' => true]],
        ['name' => 'account.save', 'description' => 'Save', 'hints' => ['consequential' => true], 'structured' => true],
    ];

    protected function setUp(): void
    {
        parent::setUp();
        Bus::fake([ContinueAgentTurn::class, RunFollowUpTurn::class]);
        $this->app->instance(AgentModel::class, new ScriptedModel(['Done']));
        $this->ada = $this->user('ada');
        $this->chat = $this->conversation($this->ada, 'page-1', self::TOOLS);
    }

    /** The content the model gets for one call of `$tool` answered with `$result`. */
    private function answered(string $tool, array $result): string
    {
        $id = (string) app(Toolmark::class)->send($this->chat, 'tc_1', 'call', $tool, []);
        $this->bridge($this->ada, $this->chat, ['protocol' => 1, 'type' => 'result', 'clientId' => 'page-1', 'id' => $id, 'result' => $result])->assertNoContent();
        Bus::dispatched(ContinueAgentTurn::class)->each(fn (ContinueAgentTurn $job) => app()->call([$job, 'handle']));

        return (string) $this->chat->messages()->where('role', 'tool')->latest('id')->first()->agent['content'];
    }

    public function test_a_structured_tool_gives_the_model_its_data_plus_the_note(): void
    {
        $this->assertSame(
            Llm::json(['status' => 'ok', 'data' => ['name' => 'Ada'], 'note' => Wire::STRUCTURED_NOTE]),
            $this->answered('account.read', ['status' => 'ok', 'data' => ['name' => 'Ada']]),
        );
    }

    public function test_an_untrusted_structured_tool_gives_it_inside_the_untrusted_envelope(): void
    {
        $this->assertSame(
            Llm::json(Llm::wrapUntrusted(['status' => 'ok', 'data' => ['text' => 'Hi'], 'note' => Wire::STRUCTURED_NOTE])),
            $this->answered('notes.read', ['status' => 'ok', 'data' => ['text' => 'Hi']]),
        );
    }

    public function test_other_results_and_tools_without_an_output_schema_are_passed_as_they_are(): void
    {
        $this->assertSame('{"status":"ok","data":{"n":1}}', $this->answered('plain.read', ['status' => 'ok', 'data' => ['n' => 1]]));
        $this->assertSame(
            '{"status":"error","message":"Tool failed"}',
            $this->answered('account.read', ['status' => 'error', 'message' => Wire::ERROR_MESSAGES['toolFailed']]),
        );
    }

    public function test_a_confirmed_outcome_of_a_structured_tool_is_structured_and_wrapped(): void
    {
        $this->answered('account.save', ['status' => 'needs_confirmation', 'confirmId' => 'confirm-1', 'summary' => 'Save', 'changes' => []]);
        $this->bridge($this->ada, $this->chat, ['protocol' => 1, 'type' => 'confirmed', 'clientId' => 'page-1', 'confirmId' => 'confirm-1', 'result' => ['status' => 'ok', 'data' => ['id' => 7]]])->assertNoContent();
        $outcome = $this->chat->messages()->where('role', 'tool')->latest('id')->first();
        $this->assertSame(
            Llm::json(Llm::wrapUntrusted(['status' => 'ok', 'data' => ['id' => 7], 'note' => Wire::STRUCTURED_NOTE])),
            $outcome->agent['content'],
        );
    }
}
