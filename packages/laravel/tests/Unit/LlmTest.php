<?php

namespace Toolmark\Laravel\Tests\Unit;

use PHPUnit\Framework\TestCase;
use Toolmark\Laravel\Llm;

/** page_call and page_describe are byte-stable: exactly the protocol's copyable definitions. */
final class LlmTest extends TestCase
{
    private static function spec(): array
    {
        return json_decode((string) file_get_contents(__DIR__.'/../fixtures/llm-exposure.json'), true, 512, JSON_THROW_ON_ERROR);
    }

    public function test_page_describe_is_the_spec_definition_byte_for_byte(): void
    {
        $this->assertSame(Llm::json(self::spec()['page_describe']), Llm::json(Llm::pageDescribeTool()));
    }

    public function test_page_call_is_the_preamble_a_blank_line_and_the_rendered_manifest(): void
    {
        $spec = self::spec()['page_call'];
        $spec['description'] .= "\n\n".self::spec()['empty_manifest'];
        $this->assertSame(Llm::json($spec), Llm::json(Llm::pageCallTool([])));

        $tools = [
            ['name' => 'signup.submit', 'description' => "Submit the\n sign-up   form", 'hints' => ['consequential' => true, 'custom' => true]],
            ['name' => 'signup.fill', 'description' => 'Fill the sign-up form', 'hints' => []],
            ['name' => 'notes.read', 'description' => '', 'hints' => ['readOnly' => true, 'untrustedContent' => true, 'destructive' => false]],
        ];
        $this->assertSame(
            self::spec()['page_call']['description']."\n\nPage tools:\n"
            ."- notes.read — [hints: readOnly, untrustedContent]\n"
            ."- signup.fill — Fill the sign-up form [hints: none]\n"
            .'- signup.submit — Submit the sign-up form [hints: consequential]',
            Llm::pageCallTool($tools)['description'],
        );
    }

    public function test_the_definitions_do_not_depend_on_the_order_the_page_sent_its_tools_in(): void
    {
        $a = ['name' => 'a.one', 'description' => 'A', 'hints' => []];
        $b = ['name' => 'b.two', 'description' => 'B', 'hints' => ['destructive' => true]];
        $this->assertSame(Llm::json(Llm::pageCallTool([$a, $b])), Llm::json(Llm::pageCallTool([$b, $a])));
    }

    public function test_untrusted_results_are_wrapped_in_the_spec_envelope(): void
    {
        $envelope = json_decode((string) file_get_contents(__DIR__.'/../fixtures/llm-exposure.json'), false)->untrusted_envelope;
        $this->assertSame(Llm::json($envelope), Llm::json(Llm::wrapUntrusted(['status' => 'ok', 'data' => (object) []])));
    }

    public function test_json_keeps_slashes_and_unicode_like_json_stringify(): void
    {
        $this->assertSame('{"a":"x/y — é"}', Llm::json(['a' => 'x/y — é']));
    }
}
